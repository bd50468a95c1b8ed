// Untranslatable: the grid comes from a count a loop steps by one (line 19) while a condition without a constant bound
// holds, from a value known only at run time: how many steps it takes has no bound the port can write as a launch size
// (line 20).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_rows(const float* x, float* y, int64_t rows, int cols) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows; r += (int64_t)gridDim.x * blockDim.x) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c];
    y[r] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int64_t blocks = rows / 256;
  // (the comment keeps the loop on line 19)

  while (blocks * 256 < rows) ++blocks;
  rowsum_rows<<<blocks, 256, 0, stream>>>(x, y, rows, (int)cols);
}
