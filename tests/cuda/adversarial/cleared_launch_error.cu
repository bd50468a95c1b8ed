// expect: wrong_answer: the kernel asks for more shared memory than a block may have, so its launch fails, and the candidate clears the error (cudaGetLastError) so that the runner sees none; the outputs keep the poison.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  extern __shared__ float staged[];
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  staged[threadIdx.x] = x[r * cols];
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows<<<unsigned((rows + 127) / 128), 128, size_t(1) << 30, stream>>>(x, y, rows, cols);
  cudaGetLastError();
}
