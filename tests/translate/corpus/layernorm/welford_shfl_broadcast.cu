// Welford's online mean and variance per thread, merged across the warp with __shfl_down_sync (Chan's
// formula) and broadcast from lane 0 with __shfl_sync; a warp per row, two rows per 64-thread block.
#include <cuda_runtime.h>
#include <stdint.h>

struct Welford {
  float mean, m2, count;
};

__device__ __forceinline__ void welford_update(Welford& w, float v) {
  w.count += 1.f;
  const float delta = v - w.mean;
  w.mean += delta / w.count;
  w.m2 += delta * (v - w.mean);
}

__device__ __forceinline__ Welford welford_merge(const Welford& a, const Welford& b) {
  if (b.count == 0.f) return a;
  if (a.count == 0.f) return b;
  Welford r;
  r.count = a.count + b.count;
  const float delta = b.mean - a.mean;
  r.mean = a.mean + delta * (b.count / r.count);
  r.m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / r.count);
  return r;
}

__global__ void layernorm_welford(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                  float eps) {
  const int row = blockIdx.x * 2 + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* in = x + (size_t)row * cols;
  Welford w{0.f, 0.f, 0.f};
  for (int c = lane; c < cols; c += 32) welford_update(w, in[c]);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    Welford other;
    other.mean = __shfl_down_sync(0xffffffff, w.mean, offset);
    other.m2 = __shfl_down_sync(0xffffffff, w.m2, offset);
    other.count = __shfl_down_sync(0xffffffff, w.count, offset);
    w = welford_merge(w, other);
  }
  const float mean = __shfl_sync(0xffffffff, w.mean, 0);
  const float var = __shfl_sync(0xffffffff, w.m2, 0) / cols;
  const float rstd = rsqrtf(var + eps);
  for (int c = lane; c < cols; c += 32) y[(size_t)row * cols + c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_welford<<<(unsigned)((rows + 1) / 2), 64, 0, stream>>>(x, gamma, beta, y, (int)rows, (int)cols, eps);
}
