// layernorm: Welford statistics in a trivially constructible struct with operator+ (Chan's merge) and
// operator+= (one sample, returning *this), merged across a warp by a shfl_down helper, warp partials in a
// __shared__ array of the struct, a second warp merging them.
#include <cuda_runtime.h>
#include <stdint.h>

struct Welford {
  float mean;
  float m2;
  float n;

  static __device__ __forceinline__ Welford empty() { return Welford{0.f, 0.f, 0.f}; }

  __device__ __forceinline__ Welford operator+(const Welford& o) const {
    const float nn = n + o.n;
    if (nn == 0.f) return empty();
    const float d = o.mean - mean;
    const float wb = o.n / nn;
    return Welford{mean + d * wb, m2 + o.m2 + d * d * n * wb, nn};
  }

  __device__ __forceinline__ Welford& operator+=(float x) {
    n += 1.f;
    const float d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
    return *this;
  }

  __device__ __forceinline__ float variance() const { return n > 0.f ? m2 / n : 0.f; }
};

static __device__ __forceinline__ Welford shfl_down(const Welford& w, int offset) {
  Welford r;
  r.mean = __shfl_down_sync(0xffffffffu, w.mean, offset);
  r.m2 = __shfl_down_sync(0xffffffffu, w.m2, offset);
  r.n = __shfl_down_sync(0xffffffffu, w.n, offset);
  return r;
}

static __device__ __forceinline__ Welford warp_merge(Welford w) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) w = w + shfl_down(w, o);
  return w;
}

template <int kThreads>
__global__ void layernorm_welford(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, int cols, float eps) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  constexpr int kWarps = kThreads / 32;
  __shared__ Welford warp_stats[kWarps];
  __shared__ float s_mean, s_rstd;
  const float* xr = x + (int64_t)blockIdx.x * cols;
  float* yr = y + (int64_t)blockIdx.x * cols;
  Welford w = Welford::empty();
  for (int c = threadIdx.x; c < cols; c += kThreads) w += xr[c];
  w = warp_merge(w);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_stats[warp] = w;
  __syncthreads();
  if (warp == 0) {
    Welford v = lane < kWarps ? warp_stats[lane] : Welford::empty();
    v = warp_merge(v);
    if (lane == 0) {
      s_mean = v.mean;
      s_rstd = rsqrtf(v.variance() + eps);
    }
  }
  __syncthreads();
  const float mean = s_mean, rstd = s_rstd;
  for (int c = threadIdx.x; c < cols; c += kThreads) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_welford<128><<<rows, 128, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
