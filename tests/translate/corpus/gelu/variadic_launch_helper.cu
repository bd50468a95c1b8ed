// A variadic launch helper (`template <typename Kernel, typename... Args> void launch_kernel(Kernel kernel, dim3 grid,
// dim3 block, size_t smem, cudaStream_t stream, Args... args)`), as many code bases wrap their launches; the entry
// chooses a vectorized or a scalar kernel and passes each its own arguments.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678f)); }

__global__ void gelu_vec2(const float2* __restrict__ x, float2* __restrict__ y, int64_t pairs) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < pairs) {
    const float2 v = x[i];
    y[i] = make_float2(gelu_erf(v.x), gelu_erf(v.y));
  }
}

__global__ void gelu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gelu_erf(x[i]);
}

template <typename Kernel, typename... Args>
static void launch_kernel(Kernel kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, Args... args) {
  kernel<<<grid, block, smem, stream>>>(args...);
}

static unsigned blocks_for(int64_t items, int threads) { return unsigned((items + threads - 1) / threads); }

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  if (n % 2 == 0) {
    const int64_t pairs = n / 2;
    launch_kernel(gelu_vec2, dim3(blocks_for(pairs, 256)), dim3(256), 0, stream, reinterpret_cast<const float2*>(x),
                  reinterpret_cast<float2*>(y), pairs);
  } else {
    launch_kernel(gelu_scalar, dim3(blocks_for(n, 128)), dim3(128), 0, stream, x, y, n);
  }
}
