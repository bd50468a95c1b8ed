// expect: wrong_answer: 8 blocks per row add their partial sums into global memory without atomics
// (lost updates), so the normalizer is wrong.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void partial(const float* x, float* y, int64_t cols, int parts) {
  const int64_t row = blockIdx.x / parts, part = blockIdx.x % parts;
  const int64_t chunk = (cols + parts - 1) / parts, begin = part * chunk, end = min(cols, begin + chunk);
  float* sum = y + row * cols;  // y[row][0] doubles as the accumulator
  for (int64_t c = begin + threadIdx.x; c < end; c += blockDim.x) {
    const float v = expf(x[row * cols + c] * 0.0f);
    volatile float* s = sum;
    *s = *s + v;  // racy read-modify-write
  }
}
__global__ void finish(const float* x, float* y, int64_t cols) {
  const float s = y[blockIdx.x * cols];
  __syncthreads();
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = 1.0f / s + 0.0f * x[c];
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float) * rows * cols, stream);
  partial<<<unsigned(rows * 8), 256, 0, stream>>>(x, y, cols, 8);
  finish<<<unsigned(rows), 256, 0, stream>>>(x, y, cols);
}
