// rmsnorm: launch constants as an unscoped enum inside a config struct (old-style `enum { kThreads = 128 }`), the
// config a template parameter of the kernel, threads over float2 pairs of the row through reinterpret_cast when
// cols is even, warp sums in __shared__ and a final reduction by warp 0.
#include <cuda_runtime.h>
#include <stdint.h>

struct RmsConfig {
  enum { kThreads = 128, kWarps = kThreads / 32 };
};

template <typename Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) rmsnorm_cfg(const float* __restrict__ x, const float* __restrict__ weight,
                                                            float* __restrict__ y, int cols, float eps) {
  __shared__ float warp_ss[Cfg::kWarps];
  __shared__ float s_scale;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float ss = 0.f;
  if ((cols & 1) == 0) {
    const float2* x2 = reinterpret_cast<const float2*>(xr);
    for (int i = threadIdx.x; i < cols / 2; i += Cfg::kThreads) {
      const float2 v = x2[i];
      ss = fmaf(v.x, v.x, fmaf(v.y, v.y, ss));
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += Cfg::kThreads) ss = fmaf(xr[i], xr[i], ss);
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) warp_ss[threadIdx.x / 32] = ss;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < Cfg::kWarps ? warp_ss[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
    if (threadIdx.x == 0) s_scale = rsqrtf(t / (float)cols + eps);
  }
  __syncthreads();
  const float scale = s_scale;
  float* yr = y + (size_t)blockIdx.x * cols;
  for (int i = threadIdx.x; i < cols; i += Cfg::kThreads) yr[i] = xr[i] * scale * weight[i];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_cfg<RmsConfig><<<(unsigned)rows, RmsConfig::kThreads, 0, stream>>>(x, weight, y, (int)cols, eps);
}
