// expect: timeout: the kernel never finishes; the evaluator kills the runner.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void spin(float* y, int64_t n) {
  volatile float* p = y;
  while (p[0] == p[0] || true) p[1] = 0.0f;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(y, rows * cols);
}
