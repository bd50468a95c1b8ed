// matmul, built-in cpu template family packed_microkernel: BLIS-style packed panels with an MR x NR FMA register micro-kernel.
// Knobs: ksearch replaces each #define below with the value it tries (packed_microkernel.toml lists them).
#define VECTOR_BITS 512
#define MR 0
#define NR_VECTORS 0
#define KC 256
#define MC 192
#define NC 1024
#define THREADS 1

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "../common/vector.h"

#include <omp.h>

// GotoBLAS/BLIS structure: for each (NC columns, KC depth) panel, B is packed into NR-wide strips
// (a strip stays in L1 across the micro-kernel calls that use it) and A into MR-tall strips; an
// MR x NR register tile accumulates KC rank-1 updates with vector FMAs.
// NR_VECTORS 0 = sized for the target: 4 vectors a row with 32 vector registers (AVX-512), 2 with 16 (AVX2:
// 6 x 2 ymm, the classic Haswell tile).
constexpr int kNrVectors = NR_VECTORS > 0 ? NR_VECTORS : (kVectorRegisters >= 32 ? 4 : 2);
// 0 = as many rows as fit the registers beside the B vectors and one broadcast of A.
constexpr int kMr = MR > 0 ? MR : std::min(16, (kVectorRegisters - kNrVectors - 1) / kNrVectors);
constexpr int NR = kNrVectors * VW;
constexpr int64_t MC_ROWS = (MC + kMr - 1) / kMr * kMr;
constexpr int64_t NC_COLS = (NC + NR - 1) / NR * NR;

inline float* align64(const std::unique_ptr<float[]>& buf) {
  return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(buf.get()) + 63) & ~uintptr_t(63));
}

// Strip s of A rows [s*MR, s*MR + MR) x depth [p0, p0 + kc): ap[p * MR + r]; rows past m are zero. Each row is
// read contiguously (the strided side is the store, into a strip that stays in L1).
inline void pack_a_strip(const float* A, int64_t m, int64_t k, int64_t s, int64_t p0, int64_t kc, float* __restrict ap) {
  const int64_t i0 = s * kMr;
  const int rows = int(std::min<int64_t>(kMr, m - i0));
  for (int r = 0; r < rows; ++r) {
    const float* __restrict a = A + (i0 + r) * k + p0;
    for (int64_t p = 0; p < kc; ++p) ap[p * kMr + r] = a[p];
  }
  for (int r = rows; r < kMr; ++r)
    for (int64_t p = 0; p < kc; ++p) ap[p * kMr + r] = 0.0f;
}

// Strip of B columns [j0, j0 + cols) x depth [p0, p0 + kc): bp[p * NR + c]; columns past cols are zero.
inline void pack_b_strip(const float* B, int64_t n, int64_t j0, int64_t cols, int64_t p0, int64_t kc, float* __restrict bp) {
  for (int64_t p = 0; p < kc; ++p) {
    const float* __restrict b = B + (p0 + p) * n + j0;
    if (cols == NR) {
#pragma GCC unroll 4
      for (int v = 0; v < kNrVectors; ++v) v_store(bp + p * NR + v * VW, v_load(b + v * VW));
    } else {
      for (int64_t c = 0; c < cols; ++c) bp[p * NR + c] = b[c];
      for (int64_t c = cols; c < NR; ++c) bp[p * NR + c] = 0.0f;
    }
  }
}

// C[0:mr, 0:nr] (+)= a-strip * b-strip over kc; full tiles go straight to C, edge tiles via a buffer.
inline void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b, float* __restrict c,
                         int64_t ldc, int mr, int nr, bool accumulate) {
  if (accumulate)  // the tile of C comes from L3 or memory: its lines arrive while the products are summed
    for (int i = 0; i < mr; ++i) {
      __builtin_prefetch(c + i * ldc);
      __builtin_prefetch(c + i * ldc + nr - 1);
    }
  vf acc[kMr][kNrVectors];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNrVectors; ++v) acc[i][v] = v_set1(0.0f);
  // Unrolled so that the loop's counter and pointer updates do not eat into the issue slots of the FMAs.
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    vf bv[kNrVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kNrVectors; ++v) bv[v] = v_load(b + p * NR + v * VW);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const vf av = v_set1(a[p * kMr + i]);
#pragma GCC unroll 4
      for (int v = 0; v < kNrVectors; ++v) acc[i][v] = v_fma(av, bv[v], acc[i][v]);
    }
  }
  if (mr == kMr && nr == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < kNrVectors; ++v) {
        float* cp = c + i * ldc + v * VW;
        v_store(cp, accumulate ? v_add(v_load(cp), acc[i][v]) : acc[i][v]);
      }
    return;
  }
  float tile[kMr * NR];
  for (int i = 0; i < kMr; ++i)
    for (int v = 0; v < kNrVectors; ++v) v_store(tile + i * NR + v * VW, acc[i][v]);
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + tile[i * NR + j];
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    std::memset(C, 0, sizeof(float) * size_t(m * n));
    return;
  }
  const int64_t kc_max = std::min<int64_t>(KC, k);
  const int64_t a_strips = (m + kMr - 1) / kMr;
  const int64_t nc_max = std::min<int64_t>(NC_COLS, (n + NR - 1) / NR * NR);
  // Uninitialized: packing writes every element used.
  const auto a_buf = std::make_unique_for_overwrite<float[]>(size_t(a_strips * kMr * kc_max) + 16);
  const auto b_buf = std::make_unique_for_overwrite<float[]>(size_t(nc_max * kc_max) + 16);
  float* const ap = align64(a_buf);
  float* const bp = align64(b_buf);
  const int64_t m_blocks = (m + MC_ROWS - 1) / MC_ROWS;

#pragma omp parallel if (THREADS)
  for (int64_t jc = 0; jc < n; jc += NC_COLS) {
    const int64_t nc = std::min<int64_t>(NC_COLS, n - jc);
    const int64_t b_strips = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min<int64_t>(KC, k - pc);
#pragma omp for schedule(static)
      for (int64_t s = 0; s < b_strips; ++s)
        pack_b_strip(B, n, jc + s * NR, std::min<int64_t>(NR, nc - s * NR), pc, kc, bp + s * kc * NR);
#pragma omp for schedule(static)
      for (int64_t s = 0; s < a_strips; ++s) pack_a_strip(A, m, k, s, pc, kc, ap + s * kc * kMr);
#pragma omp for schedule(static)
      for (int64_t unit = 0; unit < m_blocks * b_strips; ++unit) {
        const int64_t ib = unit / b_strips, s = unit % b_strips;
        const int nr = int(std::min<int64_t>(NR, nc - s * NR));
        const int64_t i_end = std::min<int64_t>(m, (ib + 1) * MC_ROWS);
        for (int64_t i = ib * MC_ROWS; i < i_end; i += kMr)
          micro_kernel(kc, ap + (i / kMr) * kc * kMr, bp + s * kc * NR, C + i * n + jc + s * NR, n,
                       int(std::min<int64_t>(kMr, m - i)), nr, pc > 0);
      }
    }
  }
}
