// Bitonic sort of a row in dynamic shared memory, the compare-exchange by std::swap on shared elements
// (<utility>'s swap is a host function before C++20: our device declaration, ks_swap in Metal).
#include <cuda_runtime.h>
#include <stdint.h>
#include <utility>
#include <cfloat>

__global__ void bitonic_rows(const float* __restrict__ x, float* __restrict__ y, int cols, int padded) {
  extern __shared__ float s[];
  const int row = blockIdx.x;
  for (int i = threadIdx.x; i < padded; i += blockDim.x)
    s[i] = i < cols ? x[(size_t)row * cols + i] : FLT_MAX;
  __syncthreads();
  for (int k = 2; k <= padded; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = threadIdx.x; i < padded; i += blockDim.x) {
        const int partner = i ^ j;
        if (partner > i) {
          const bool ascending = (i & k) == 0;
          if ((s[i] > s[partner]) == ascending) std::swap(s[i], s[partner]);
        }
      }
      __syncthreads();
    }
  }
  for (int i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)row * cols + i] = s[i];
}

extern "C" void sort_rows(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int padded = cols <= 128 ? 128 : 1024;  // the task's rows are at most 1024 long
  bitonic_rows<<<rows, 256, padded * sizeof(float), stream>>>(x, y, cols, padded);
}
