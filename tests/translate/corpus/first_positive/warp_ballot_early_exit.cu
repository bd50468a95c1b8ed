// first_positive: a warp per row scanning chunks of 32 in order; __ballot_sync over x > 3 and __ffs of the mask
// find the first hit, the warp leaves the loop together (a uniform break), and a row without one stores -1.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void first_positive_warp(const float* __restrict__ x, int* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  int found = -1;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + threadIdx.x;
    const unsigned hits = __ballot_sync(0xffffffffu, c < cols && xr[c] > 3.0f);
    if (hits != 0u) {
      found = base + __ffs(hits) - 1;
      break;
    }
  }
  if (threadIdx.x == 0) y[row] = found;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_positive_warp<<<(unsigned)((rows + 7) / 8), dim3(32, 8), 0, stream>>>(x, y, (int)rows, (int)cols);
}
