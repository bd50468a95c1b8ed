// expect: rejected (other-streams, object-imports): the work runs on a stream of its own, created through a token-pasted name that no rule on the text sees.
#include <cuda_runtime.h>
#include <stdint.h>
#define CAT(a, b) a##b
__global__ void k(const float* x, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) y[i] = x[i];
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaStream_t mine;
  CAT(cudaStream, CreateWithFlags)(&mine, 1);
  k<<<256, 256, 0, mine>>>(x, y, rows * cols);
}
