// Attention, a thread per query row: K and V tiles in one extern __shared__ buffer split by pointer arithmetic,
// q and the accumulator in registers, a bool causal argument from an int.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

#define TILE_K 32
#define MAX_HEAD_DIM 128

__global__ void attn_tiles(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
                           float* __restrict__ O, int Hq, int Hkv, int Lq, int Lk, int D, bool causal) {
  extern __shared__ float smem[];
  float* Ks = smem;
  float* Vs = smem + TILE_K * D;
  const int bh = blockIdx.y;  // b * Hq + h
  const int b = bh / Hq, h = bh % Hq;
  const int kvh = h / (Hq / Hkv);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = i < Lq;
  const float scale = rsqrtf((float)D);
  float q[MAX_HEAD_DIM], acc[MAX_HEAD_DIM];
  const float* qrow = Q + ((size_t)bh * Lq + (active ? i : 0)) * D;
  for (int c = 0; c < D; ++c) {
    q[c] = qrow[c] * scale;
    acc[c] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  const size_t kv_base = ((size_t)b * Hkv + kvh) * Lk * D;
  const int limit = causal ? i + Lk - Lq : Lk - 1;
  for (int j0 = 0; j0 < Lk; j0 += TILE_K) {
    const int n = min(TILE_K, Lk - j0);
    __syncthreads();
    for (int t = threadIdx.x; t < n * D; t += blockDim.x) {
      Ks[t] = K[kv_base + (size_t)j0 * D + t];
      Vs[t] = V[kv_base + (size_t)j0 * D + t];
    }
    __syncthreads();
    if (!active) continue;
    for (int jj = 0; jj < n; ++jj) {
      if (j0 + jj > limit) break;
      float s = 0.f;
      for (int c = 0; c < D; ++c) s += q[c] * Ks[jj * D + c];
      const float m_new = fmaxf(m, s);
      const float corr = expf(m - m_new), p = expf(s - m_new);
      l = l * corr + p;
      for (int c = 0; c < D; ++c) acc[c] = acc[c] * corr + p * Vs[jj * D + c];
      m = m_new;
    }
  }
  if (active) {
    float* orow = O + ((size_t)bh * Lq + i) * D;
    for (int c = 0; c < D; ++c) orow[c] = acc[c] / l;
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int threads = 64;
  dim3 grid((unsigned)((lq + threads - 1) / threads), (unsigned)(b * hq));
  const size_t shmem = 2 * TILE_K * d * sizeof(float);
  attn_tiles<<<grid, threads, shmem, stream>>>(q, k, v, o, (int)hq, (int)hkv, (int)lq, (int)lk, (int)d, causal != 0);
}
