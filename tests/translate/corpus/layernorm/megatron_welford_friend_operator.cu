// Megatron/Apex-style fused layer norm: a Welford struct with constructors and a friend operator+
// defined inside the struct, a SHFL_XOR macro wrapper, per-warp partials in shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

#define FINAL_MASK 0xffffffffu
#define SHFL_XOR(v, m) __shfl_xor_sync(FINAL_MASK, (v), (m), 32)

namespace megatron {

struct WelfordData {
  float mean, m2, count;
  __device__ __forceinline__ WelfordData() : mean(0.f), m2(0.f), count(0.f) {}
  __device__ __forceinline__ WelfordData(float m, float s, float c) : mean(m), m2(s), count(c) {}
  friend __device__ __forceinline__ WelfordData operator+(const WelfordData& a, const WelfordData& b) {
    const float n = a.count + b.count;
    if (n == 0.f) return WelfordData();
    const float delta = b.mean - a.mean;
    const float nb_n = b.count / n;
    return WelfordData(a.mean + delta * nb_n, a.m2 + b.m2 + delta * delta * a.count * nb_n, n);
  }
};

__device__ __forceinline__ WelfordData warp_welford(WelfordData w) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    WelfordData o(SHFL_XOR(w.mean, m), SHFL_XOR(w.m2, m), SHFL_XOR(w.count, m));
    w = w + o;
  }
  return w;
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    layer_norm_fwd(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                   float* __restrict__ y, int cols, float eps) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  constexpr int kWarps = kThreads / 32;
  __shared__ float sm_mean[kWarps], sm_m2[kWarps], sm_count[kWarps];
  __shared__ float s_mean, s_rstd;
  const float* __restrict__ xr = x + static_cast<int64_t>(blockIdx.x) * cols;
  float* __restrict__ yr = y + static_cast<int64_t>(blockIdx.x) * cols;
  WelfordData w;
  for (int c = threadIdx.x; c < cols; c += kThreads) w = w + WelfordData(xr[c], 0.f, 1.f);
  w = warp_welford(w);
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) {
    sm_mean[wid] = w.mean;
    sm_m2[wid] = w.m2;
    sm_count[wid] = w.count;
  }
  __syncthreads();
  if (wid == 0) {
    w = lane < kWarps ? WelfordData(sm_mean[lane], sm_m2[lane], sm_count[lane]) : WelfordData();
    w = warp_welford(w);
    if (lane == 0) {
      s_mean = w.mean;
      s_rstd = rsqrtf(w.m2 / w.count + eps);
    }
  }
  __syncthreads();
  const float mean = s_mean, rstd = s_rstd;
  for (int c = threadIdx.x; c < cols; c += kThreads) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

}  // namespace megatron

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  megatron::layer_norm_fwd<128><<<(unsigned)rows, 128, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
