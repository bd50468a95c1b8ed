// matmul, built-in cpu template family packed_microkernel: BLIS-style packed panels with an MR x NR FMA register micro-kernel.
// Knobs: ksearch replaces each #define below with the value it tries (packed_microkernel.toml lists them).
#define VECTOR_BITS 512
#define MR 0
#define NR_VECTORS 0
#define KC 256
#define MC 192
#define NC 1024
#define PACK_A 0
#define THREADS 1

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "../common/vector.h"

#include <omp.h>

// GotoBLAS/BLIS structure: for each (NC columns, KC depth) panel, B is packed into NR-wide strips
// (a strip stays in L1 across the micro-kernel calls that use it) and A is taken in MR-tall strips; an
// MR x NR register tile accumulates KC rank-1 updates with vector FMAs. A's strips are broadcast straight from its
// rows by default: packing them (PACK_A 1) costs a pass of scalar transposing stores that the broadcasts do not
// need (an MR-row strip's rows are MR streams the L1 holds as well as one packed stream).
// NR_VECTORS 0 = sized for the target: 4 vectors a row with 32 vector registers (AVX-512), 2 with 16 (AVX2:
// 6 x 2 ymm, the classic Haswell tile).
constexpr int kNrVectors = NR_VECTORS > 0 ? NR_VECTORS : (kVectorRegisters >= 32 ? 4 : 2);
// 0 = as many rows as fit the registers beside the B vectors and one broadcast of A.
constexpr int kMr = MR > 0 ? MR : std::min(16, (kVectorRegisters - kNrVectors - 1) / kNrVectors);
constexpr int NR = kNrVectors * VW;
constexpr int64_t MC_STRIPS = (MC + kMr - 1) / kMr;
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

constexpr int64_t kBPrefetchRows = 8;
// 2M multiply-adds: about 15 us on one core.
constexpr int64_t kParallelWork = int64_t(1) << 21;

// The cache lines of `count` floats from p, to be read (kWrite 0) or written (1).
template <int kWrite>
inline void prefetch_span(const float* p, int64_t count) {
  for (int64_t c = 0; c < count; c += 16) __builtin_prefetch(p + c, kWrite);
  __builtin_prefetch(p + count - 1, kWrite);
}

// Strip of B columns [j0, j0 + cols) x depth [p0, p0 + kc): bp[p * NR + c]; columns past cols are zero. The rows
// are n apart, a stride the hardware prefetchers do not follow across pages: each row is fetched kBPrefetchRows
// rows ahead, so that many rows' lines are in flight from memory at once.
inline void pack_b_strip(const float* B, int64_t n, int64_t j0, int64_t cols, int64_t p0, int64_t kc, float* __restrict bp) {
  const float* const b0 = B + p0 * n + j0;
  for (int64_t p = 0; p < std::min<int64_t>(kc, kBPrefetchRows); ++p) prefetch_span<0>(b0 + p * n, cols);
  for (int64_t p = 0; p < kc; ++p) {
    const float* __restrict b = b0 + p * n;
    if (p + kBPrefetchRows < kc) prefetch_span<0>(b + kBPrefetchRows * n, cols);
    if (cols == NR) {
#pragma GCC unroll 4
      for (int v = 0; v < kNrVectors; ++v) v_store(bp + p * NR + v * VW, v_load(b + v * VW));
    } else {
      for (int64_t c = 0; c < cols; ++c) bp[p * NR + c] = b[c];
      for (int64_t c = cols; c < NR; ++c) bp[p * NR + c] = 0.0f;
    }
  }
}

// Rows of A read next from memory (by a micro-kernel or a packing), fetched while a micro-kernel computes: `rows`
// rows from `first`, lda apart, each as far as the micro-kernel's depth.
struct NextARows {
  const float* first = nullptr;
  int64_t lda = 0;
  int rows = 0;
};

// C[0:mr, 0:nr] (+)= a-strip * b-strip over kc, nr <= kVectors * VW (the B strip's first kVectors vectors: an
// edge strip computes only the vectors it has); full tiles go straight to C, edge tiles via a buffer. The strip
// of A is packed (a[p * MR + r]) or, kPackedA false, kMr rows of A itself, lda apart (a[r * lda + p]).
template <bool kPackedA, int kVectors>
inline void micro_kernel(int64_t kc, const float* __restrict a, int64_t lda, const float* __restrict b,
                         float* __restrict c, int64_t ldc, int mr, int nr, bool accumulate, NextARows next) {
  // The tile of C comes from L3 or memory (read to be summed into, or to be overwritten): all lines of its rows
  // arrive while the products are summed.
  for (int i = 0; i < mr; ++i) prefetch_span<1>(c + i * ldc, nr);
  vf acc[kMr][kVectors];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[i][v] = v_set1(0.0f);
  const auto step = [&](int64_t p) {
    vf bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) bv[v] = v_load(b + p * NR + v * VW);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const vf av = v_set1(kPackedA ? a[p * kMr + i] : a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) acc[i][v] = v_fma(av, bv[v], acc[i][v]);
    }
  };
  // 16 depth steps per cache line of the next A rows: one prefetch per row each 16 steps keeps pace with them.
  int64_t p = 0;
  for (; p + 16 <= kc; p += 16) {
    for (int r = 0; r < next.rows; ++r) __builtin_prefetch(next.first + r * next.lda + p, 0, 2);
    // Unrolled so that the loop's counter and pointer updates do not eat into the issue slots of the FMAs.
#pragma GCC unroll 4
    for (int q = 0; q < 16; ++q) step(p + q);
  }
  for (; p < kc; ++p) step(p);
  if (mr == kMr && nr == kVectors * VW) {
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        float* cp = c + i * ldc + v * VW;
        v_store(cp, accumulate ? v_add(v_load(cp), acc[i][v]) : acc[i][v]);
      }
    return;
  }
  float tile[kMr * NR];
  for (int i = 0; i < kMr; ++i)
    for (int v = 0; v < kVectors; ++v) v_store(tile + i * NR + v * VW, acc[i][v]);
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + tile[i * NR + j];
}

// The micro-kernel for the fewest vectors that hold nr columns.
template <bool kPackedA, int kVectors = kNrVectors>
inline void tile_kernel(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, int mr, int nr,
                        bool accumulate, NextARows next) {
  if constexpr (kVectors > 1)
    if (nr <= (kVectors - 1) * VW)
      return tile_kernel<kPackedA, kVectors - 1>(kc, a, lda, b, c, ldc, mr, nr, accumulate, next);
  micro_kernel<kPackedA, kVectors>(kc, a, lda, b, c, ldc, mr, nr, accumulate, next);
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
  // Without PACK_A only the last strip, short of kMr rows, is packed.
  const auto a_buf = std::make_unique_for_overwrite<float[]>(size_t((PACK_A ? a_strips : 1) * kMr * kc_max) + 16);
  const auto b_buf = std::make_unique_for_overwrite<float[]>(size_t(nc_max * kc_max) + 16);
  float* const ap = align64(a_buf);
  float* const bp = align64(b_buf);

  // Threads share A's strips (no more threads than strips), and only a product of at least kParallelWork
  // multiply-adds is shared at all: below, a thread's share would be shorter than starting it and meeting it at
  // each panel's barriers.
#pragma omp parallel if (THREADS && m * n * k >= kParallelWork) num_threads(int(std::min<int64_t>(a_strips, omp_get_max_threads())))
  {
    // Each thread owns an equal share of A's strips, MC_STRIPS at a time, and reads (or packs, just before their
    // first micro-kernel) only those; the micro-kernels fetch the rows of A that come next, so A's reads from
    // memory overlap the FMAs. B's panel is shared: its strips are packed by all threads before any is used.
    const int64_t per_thread = (a_strips + omp_get_num_threads() - 1) / omp_get_num_threads();
    const int64_t first_strip = std::min<int64_t>(a_strips, omp_get_thread_num() * per_thread);
    const int64_t end_strip = std::min<int64_t>(a_strips, first_strip + per_thread);
    for (int64_t jc = 0; jc < n; jc += NC_COLS) {
      const int64_t nc = std::min<int64_t>(NC_COLS, n - jc);
      const int64_t b_strips = (nc + NR - 1) / NR;
      for (int64_t pc = 0; pc < k; pc += KC) {
        const int64_t kc = std::min<int64_t>(KC, k - pc);
#pragma omp for schedule(static)
        for (int64_t s = 0; s < b_strips; ++s)
          pack_b_strip(B, n, jc + s * NR, std::min<int64_t>(NR, nc - s * NR), pc, kc, bp + s * kc * NR);
        for (int64_t block = first_strip; block < end_strip; block += MC_STRIPS) {
          const int64_t block_end = std::min<int64_t>(end_strip, block + MC_STRIPS);
          for (int64_t s = 0; s < b_strips; ++s) {
            const int nr = int(std::min<int64_t>(NR, nc - s * NR));
            for (int64_t i = block; i < block_end; ++i) {
              // A's rows serve as they are where the strip has all kMr of them and PACK_A is 0.
              const bool packed = PACK_A || (i + 1) * kMr > m;
              float* const a_packed = ap + (PACK_A ? i : 0) * kc * kMr;
              if (packed && s == 0) pack_a_strip(A, m, k, i, pc, kc, a_packed);
              // A's rows read next from memory, one line of each per 16 depth steps: during the thread's first
              // block's first B strip, the strip after this one; otherwise an equal share of the next block's rows
              // per micro-kernel, so that the next block arrives while this one computes.
              NextARows next;
              const bool first_pass = block == first_strip && s == 0;
              if (first_pass && i + 1 < end_strip) {
                next = {A + (i + 1) * kMr * k + pc, k, int(std::min<int64_t>(kMr, m - (i + 1) * kMr))};
              } else if (!first_pass && block_end < end_strip) {
                const int64_t passes = block == first_strip ? b_strips - 1 : b_strips;
                const int64_t kernels = passes * (block_end - block);
                const int64_t q = (s - (b_strips - passes)) * (block_end - block) + (i - block);
                const int64_t rows = std::min<int64_t>(MC_STRIPS, end_strip - block_end) * kMr;
                const int64_t r0 = block_end * kMr + q * rows / kernels, r1 = block_end * kMr + (q + 1) * rows / kernels;
                next = {A + r0 * k + pc, k, int(std::min(r1, m) - std::min(r0, m))};
              }
              float* const c_tile = C + i * kMr * n + jc + s * NR;
              const int mr = int(std::min<int64_t>(kMr, m - i * kMr));
              if (packed)
                tile_kernel<true>(kc, a_packed, kMr, bp + s * kc * NR, c_tile, n, mr, nr, pc > 0, next);
              else
                tile_kernel<false>(kc, A + i * kMr * k + pc, k, bp + s * kc * NR, c_tile, n, mr, nr, pc > 0, next);
            }
          }
        }
        // B's panel is packed again for the next (jc, pc) only when every thread is done with this one.
#pragma omp barrier
      }
    }
  }
}
