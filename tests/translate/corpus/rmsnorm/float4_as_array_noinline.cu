// rmsnorm: float4 registers indexed as float arrays through reinterpret_cast<float*>(&v)[j], a __noinline__
// block reduction, a __device__ constexpr constant at namespace scope, the weight read as float4 too.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ constexpr int kThreads = 128;

__device__ __noinline__ float block_reduce(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.f;
  for (int i = 0; i < kThreads / 32; ++i) t += red[i];
  return t;
}

__global__ void rmsnorm_vec(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y, int cols,
                            float eps) {
  __shared__ float red[kThreads / 32];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  const int n4 = (cols % 4 == 0) ? cols / 4 : 0;  // vector path only for rows of whole float4s
  float ss = 0.f;
  for (int i = threadIdx.x; i < n4; i += kThreads) {
    float4 v = reinterpret_cast<const float4*>(xr)[i];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float e = reinterpret_cast<float*>(&v)[j];
      ss += e * e;
    }
  }
  for (int c = n4 * 4 + threadIdx.x; c < cols; c += kThreads) ss += xr[c] * xr[c];
  const float scale = rsqrtf(block_reduce(ss, red) / cols + eps);
  for (int i = threadIdx.x; i < n4; i += kThreads) {
    float4 v = reinterpret_cast<const float4*>(xr)[i];
    const float4 w = reinterpret_cast<const float4*>(weight)[i];
#pragma unroll
    for (int j = 0; j < 4; ++j) reinterpret_cast<float*>(&v)[j] *= scale * reinterpret_cast<const float*>(&w)[j];
    reinterpret_cast<float4*>(yr)[i] = v;
  }
  for (int c = n4 * 4 + threadIdx.x; c < cols; c += kThreads) yr[c] = xr[c] * scale * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_vec<<<(unsigned)rows, kThreads, 0, stream>>>(x, weight, y, (int)cols, eps);
}
