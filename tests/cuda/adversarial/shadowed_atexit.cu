// expect: rejected (object-load-time-code): defines atexit under an asm label (the name is a string, which no rule on identifiers reads; hidden, so the linker takes it for the C library's and leaves libc_nonshared's out): nvcc's registration code calls atexit while the library loads, so the candidate's code runs at load time.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

extern "C" __attribute__((visibility("hidden"))) int at_load(void (*handler)()) __asm__("atexit");
extern "C" int at_load(void (*handler)()) {
  fputs("candidate code at load time\n", stderr);
  return 0;
}

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}
