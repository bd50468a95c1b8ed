// expect: runtime_error: ends the runner in the middle of a call through exit, its name token-pasted in host-only code (#ifndef __CUDA_ARCH__): nvcc -E preprocesses the device side, so the rules on what the preprocessor makes never see the host side's expansion, and exit is an allowed import (nvcc's host stubs of __device__ functions call it). The evaluator sees the runner die.
#include <cuda_runtime.h>
#include <stdint.h>
#define CAT(a, b) a##b
#ifndef __CUDA_ARCH__
#define LEAVE() CAT(ex, it)(0)
#else
#define LEAVE()
#endif
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  LEAVE();
}
