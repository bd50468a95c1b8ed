// A bitonic sort of each row in shared memory: one block per row, the row padded to 1024 with
// +INFINITY, the classic (k, j) compare-exchange loops with `ixj = i ^ j`.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

#define MAX_COLS 1024

__device__ __forceinline__ void compare_exchange(float* s, unsigned i, unsigned j, bool ascending) {
  const float a = s[i], b = s[j];
  if ((a > b) == ascending) {
    s[i] = b;
    s[j] = a;
  }
}

__global__ void bitonic_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float s[MAX_COLS];
  const float* row = x + (size_t)blockIdx.x * cols;
  for (unsigned i = threadIdx.x; i < MAX_COLS; i += blockDim.x) s[i] = i < cols ? row[i] : CUDART_INF_F;
  __syncthreads();
  for (unsigned k = 2; k <= MAX_COLS; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      for (unsigned i = threadIdx.x; i < MAX_COLS; i += blockDim.x) {
        const unsigned ixj = i ^ j;
        if (ixj > i) compare_exchange(s, i, ixj, (i & k) == 0);
      }
      __syncthreads();
    }
  }
  for (unsigned i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)blockIdx.x * cols + i] = s[i];
}

extern "C" void sort_rows(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  bitonic_rows<<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
