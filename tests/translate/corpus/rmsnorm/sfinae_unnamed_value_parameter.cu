// rmsnorm: a kernel template whose only SFINAE constraint is an unnamed non-type parameter
// (`std::enable_if_t<(VEC == 1 || VEC == 4), int> = 0`): no template directive is written for it.
#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

template <int VEC, typename T,
          std::enable_if_t<(VEC == 1 || VEC == 4), int> = 0>
__global__ void __launch_bounds__(256, 2) rmsnorm_sfinae(const T* __restrict__ x, const T* __restrict__ w,
                                                         T* __restrict__ y, int cols, float eps) {
  __shared__ float red[8];
  const T* xr = x + (int64_t)blockIdx.x * cols;
  T* yr = y + (int64_t)blockIdx.x * cols;
  float ss = 0.f;
  for (int c = threadIdx.x * VEC; c < cols; c += blockDim.x * VEC) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) ss = fmaf((float)xr[c + j], (float)xr[c + j], ss);
  }
  for (int o = 16; o; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
  __syncthreads();
  float tot = 0.f;
  for (int k = 0; k < (int)(blockDim.x >> 5); ++k) tot += red[k];
  const float r = rsqrtf(tot / cols + eps);
  for (int c = threadIdx.x * VEC; c < cols; c += blockDim.x * VEC) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) yr[c + j] = (T)((float)xr[c + j] * r * (float)w[c + j]);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  if (cols % 4 == 0)
    rmsnorm_sfinae<4, float><<<rows, 256, 0, stream>>>(x, weight, y, (int)cols, eps);
  else
    rmsnorm_sfinae<1, float><<<rows, 256, 0, stream>>>(x, weight, y, (int)cols, eps);
}
