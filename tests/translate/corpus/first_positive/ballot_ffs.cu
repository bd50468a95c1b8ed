// __ballot_sync then __ffs finds the first lane over the threshold; the warp stops at the first hit.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void first_ffs(const float* x, int* y, int cols) {
  int found = -1;
  for (int base = 0; base < cols && found < 0; base += 32) {
    const int c = base + threadIdx.x;
    const unsigned hits = __ballot_sync(0xffffffff, c < cols && x[(int64_t)blockIdx.x * cols + c] > 3.0f);
    if (hits) found = base + __ffs(hits) - 1;
  }
  if (threadIdx.x == 0) y[blockIdx.x] = found;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_ffs<<<rows, 32, 0, stream>>>(x, y, cols);
}
