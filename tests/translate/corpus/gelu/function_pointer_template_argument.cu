// vLLM's activation kernels: the activation as a function-pointer template argument (act_and_mul_kernel<scalar_t,
// silu_kernel<scalar_t>>), here the exact GELU over a grid-stride loop of 64-bit indices.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__device__ __forceinline__ T gelu_kernel(const T& x) {
  const float f = (float)x;
  return (T)(f * 0.5f * (1.0f + erff(f * 0.70710678118654752440f)));
}

template <typename scalar_t, scalar_t (*ACT_FN)(const scalar_t&)>
__global__ void activation_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input, const int64_t n) {
  for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < n; idx += (int64_t)gridDim.x * blockDim.x) {
    const scalar_t x = input[idx];
    out[idx] = ACT_FN(x);
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int block = 256;
  const int grid = (int)((n + block - 1) / block < 1024 ? (n + block - 1) / block : 1024);
  activation_kernel<float, gelu_kernel<float>><<<grid, block, 0, stream>>>(y, x, n);
}
