// Bitonic sort of a row in dynamic shared memory: each thread owns one compare-exchange per step,
// a `template <bool kAscending>` helper with `if constexpr`, references into shared elements,
// the padded power of two computed on the host by a loop, INFINITY padding.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

template <bool kAscending>
__device__ __forceinline__ void compare_exchange(float& a, float& b) {
  if constexpr (kAscending) {
    if (a > b) { const float t = a; a = b; b = t; }
  } else {
    if (a < b) { const float t = a; a = b; b = t; }
  }
}

__global__ void bitonic_rows(const float* __restrict__ x, float* __restrict__ y, int cols, int padded) {
  extern __shared__ float keys[];
  const float* xr = x + (size_t)blockIdx.x * cols;
  for (int i = threadIdx.x; i < padded; i += blockDim.x) keys[i] = i < cols ? xr[i] : CUDART_INF_F;
  __syncthreads();
  for (int size = 2; size <= padded; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int t = threadIdx.x; t < padded / 2; t += blockDim.x) {
        const int lo = 2 * t - (t & (stride - 1));
        const int hi = lo + stride;
        const bool up = (lo & size) == 0;
        if (up) compare_exchange<true>(keys[lo], keys[hi]);
        else compare_exchange<false>(keys[lo], keys[hi]);
      }
      __syncthreads();
    }
  }
  for (int i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)blockIdx.x * cols + i] = keys[i];
}

extern "C" void sort_rows(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int padded = 1;
  while (padded < cols) padded <<= 1;
  const int threads = padded / 2 < 32 ? 32 : padded / 2;
  bitonic_rows<<<(unsigned)rows, threads, padded * sizeof(float), stream>>>(x, y, (int)cols, padded);
}
