// expect: rejected (object-load-time-code): appends a call to its own function to the .init section with namespace-scope asm in host-only code (the section's name is a string, which no rule on names reads, and the function has no constructor attribute): the loader runs .init's code, the toolchain's _init with the candidate's call inside it, when the library is loaded.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

extern "C" __attribute__((used, visibility("hidden"))) void at_load_time() {
  fputs("candidate code at load time\n", stderr);
}
#ifndef __CUDA_ARCH__
asm(".pushsection .init,\"ax\",@progbits\n\tcall at_load_time\n\t.popsection");
#endif

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
