// expect: rejected (process-exit): ends the runner with status 0 in the middle of a call through the compiler's builtin, which imports exit (allowed: nvcc's host stubs of device functions call it).
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  __builtin_exit(0);
}
