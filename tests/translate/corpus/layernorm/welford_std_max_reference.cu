// LayerNorm: a Welford struct with a static merge, merged by shuffles then across warps by a templated helper
// taking the shared partials by pointer; std::max, whose result is a const reference.
#include <cuda_runtime.h>
#include <stdint.h>
#include <algorithm>

struct Welford {
  float mean, m2, count;
  __device__ void push(float x) {
    count += 1.f;
    const float d = x - mean;
    mean += d / count;
    m2 += d * (x - mean);
  }
  __device__ static Welford merge(const Welford& a, const Welford& b) {
    Welford r = {0.f, 0.f, 0.f};
    r.count = a.count + b.count;
    if (r.count == 0.f) return r;
    const float d = b.mean - a.mean;
    const float wb = b.count / r.count;
    r.mean = a.mean + d * wb;
    r.m2 = a.m2 + b.m2 + d * d * a.count * wb;
    return r;
  }
};

__device__ Welford warp_merge(Welford w) {
  for (int o = 16; o > 0; o /= 2) {
    Welford other;
    other.mean = __shfl_down_sync(0xffffffff, w.mean, o);
    other.m2 = __shfl_down_sync(0xffffffff, w.m2, o);
    other.count = __shfl_down_sync(0xffffffff, w.count, o);
    w = Welford::merge(w, other);
  }
  return w;
}

template <int kWarps>
__device__ Welford block_merge(Welford w, Welford* shared) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  w = warp_merge(w);
  if (lane == 0) shared[warp] = w;
  __syncthreads();
  if (warp == 0) {
    w = lane < kWarps ? shared[lane] : Welford{0.f, 0.f, 0.f};
    w = warp_merge(w);
    if (lane == 0) shared[0] = w;
  }
  __syncthreads();
  return shared[0];
}

template <int kThreads>
__global__ void layernorm_fwd(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                              float* __restrict__ y, int cols, float eps) {
  __shared__ Welford partials[kThreads / 32];
  const float* xr = x + (size_t)blockIdx.x * cols;
  Welford w = {0.f, 0.f, 0.f};
  for (int c = threadIdx.x; c < cols; c += kThreads) w.push(xr[c]);
  const Welford total = block_merge<kThreads / 32>(w, partials);
  const float rstd = rsqrtf(std::max(total.m2 / total.count, 0.f) + eps);
  for (int c = threadIdx.x; c < cols; c += kThreads)
    y[(size_t)blockIdx.x * cols + c] = (xr[c] - total.mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_fwd<256><<<rows, 256, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
