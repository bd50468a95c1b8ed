// matmul, built-in cuda template family smem_register_tiles: shared-memory tiles, 8x8 register blocking, double buffered.
// Knobs: ksearch replaces each #define below with the value it tries (smem_register_tiles.toml lists them).
#define BM 128
#define BN 128
#define BK 16
#define SPLIT 1

#include <cuda_runtime.h>
#include <stdint.h>

constexpr int TM = 8, TN = 8, THREADS = (BM / TM) * (BN / TN);
constexpr int A_PER = BM * BK / THREADS, B_PER = BK * BN / THREADS;

__global__ void __launch_bounds__(THREADS) sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int64_t M, int64_t N, int64_t K, bool vec) {
  __shared__ __align__(16) float As[2][BK][BM + 4];  // A tile transposed: As[k][m]
  __shared__ __align__(16) float Bs[2][BK][BN + 4];
  const int tid = threadIdx.x, tx = tid % (BN / TN), ty = tid / (BN / TN);
  const int64_t m0 = int64_t(blockIdx.y) * BM, n0 = int64_t(blockIdx.x) * BN;
  // A thread's 8 rows (columns) as two groups of 4: SPLIT puts the groups half a tile apart, so a
  // quarter-warp's float4 fragment reads hit consecutive addresses (no bank conflicts).
  auto row0 = [&](int h) { return SPLIT ? ty * 4 + h * (BM / 2) : ty * TM + h * 4; };
  auto col0 = [&](int h) { return SPLIT ? tx * 4 + h * (BN / 2) : tx * TN + h * 4; };
  float a_next[A_PER], b_next[B_PER];
  // vec: float4 global loads (rows of A and B start 16-byte aligned); else one float per load.
  auto load = [&](int64_t k0) {
    if (vec) {
#pragma unroll
      for (int e = 0; e < A_PER / 4; ++e) {
        const int idx = tid + e * THREADS, r = idx / (BK / 4), c = idx % (BK / 4) * 4;
        const int64_t gm = m0 + r, gk = k0 + c;
        const float4 v = gm < M && gk < K ? __ldg(reinterpret_cast<const float4*>(A + gm * K + gk)) : make_float4(0, 0, 0, 0);
        a_next[4 * e] = v.x, a_next[4 * e + 1] = v.y, a_next[4 * e + 2] = v.z, a_next[4 * e + 3] = v.w;
      }
#pragma unroll
      for (int e = 0; e < B_PER / 4; ++e) {
        const int idx = tid + e * THREADS, r = idx / (BN / 4), c = idx % (BN / 4) * 4;
        const int64_t gk = k0 + r, gn = n0 + c;
        const float4 v = gk < K && gn < N ? __ldg(reinterpret_cast<const float4*>(B + gk * N + gn)) : make_float4(0, 0, 0, 0);
        b_next[4 * e] = v.x, b_next[4 * e + 1] = v.y, b_next[4 * e + 2] = v.z, b_next[4 * e + 3] = v.w;
      }
      return;
    }
#pragma unroll
    for (int e = 0; e < A_PER; ++e) {
      const int idx = tid + e * THREADS, r = idx / BK, c = idx % BK;
      const int64_t gm = m0 + r, gk = k0 + c;
      a_next[e] = gm < M && gk < K ? __ldg(A + gm * K + gk) : 0.0f;
    }
#pragma unroll
    for (int e = 0; e < B_PER; ++e) {
      const int idx = tid + e * THREADS, r = idx / BN, c = idx % BN;
      const int64_t gk = k0 + r, gn = n0 + c;
      b_next[e] = gk < K && gn < N ? __ldg(B + gk * N + gn) : 0.0f;
    }
  };
  auto store = [&](int buf) {
    if (vec) {
#pragma unroll
      for (int e = 0; e < A_PER / 4; ++e) {
        const int idx = tid + e * THREADS, r = idx / (BK / 4), c = idx % (BK / 4) * 4;
#pragma unroll
        for (int q = 0; q < 4; ++q) As[buf][c + q][r] = a_next[4 * e + q];
      }
#pragma unroll
      for (int e = 0; e < B_PER / 4; ++e) {
        const int idx = tid + e * THREADS, r = idx / (BN / 4), c = idx % (BN / 4) * 4;
        *reinterpret_cast<float4*>(&Bs[buf][r][c]) = make_float4(b_next[4 * e], b_next[4 * e + 1], b_next[4 * e + 2], b_next[4 * e + 3]);
      }
      return;
    }
#pragma unroll
    for (int e = 0; e < A_PER; ++e) {
      const int idx = tid + e * THREADS;
      As[buf][idx % BK][idx / BK] = a_next[e];
    }
#pragma unroll
    for (int e = 0; e < B_PER; ++e) {
      const int idx = tid + e * THREADS;
      Bs[buf][idx / BN][idx % BN] = b_next[e];
    }
  };
  float acc[TM][TN] = {};
  load(0);
  store(0);
  __syncthreads();
  int buf = 0;
  for (int64_t k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    if (more) load(k0 + BK);  // global loads in flight during the math below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
      *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[buf][kk][row0(0)]);
      *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[buf][kk][row0(1)]);
      *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[buf][kk][col0(0)]);
      *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[buf][kk][col0(1)]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) store(buf ^ 1);  // the other buffer was last read before the previous barrier
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t gm = m0 + row0(i / 4) + i % 4;
    if (gm >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t gn = n0 + col0(h);
      const float* v = &acc[i][4 * h];
      if (N % 4 == 0 && gn + 4 <= N) {
        *reinterpret_cast<float4*>(C + gm * N + gn) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (gn + j < N) C[gm * N + gn + j] = v[j];
      }
    }
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  const dim3 grid(unsigned((n + BN - 1) / BN), unsigned((m + BM - 1) / BM));
  const bool vec = k % 4 == 0 && n % 4 == 0 && reinterpret_cast<uintptr_t>(A) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(B) % 16 == 0;
  sgemm<<<grid, THREADS, 0, stream>>>(A, B, C, m, n, k, vec);
}
