// expect: rejected (module-registration; without the text rules, object-load-time-code): defines nvcc's __cudaRegisterFatBinaryEnd itself (hidden, so the registration code that nvcc adds to every file binds its call to it, and inlines it): the candidate's code runs when the library is loaded, inside the one load-time function the checks of .init_array allow by name, the place for work done once outside every timed call.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

extern "C" __attribute__((visibility("hidden"))) void __cudaRegisterFatBinaryEnd(void** handle) {
  fputs("candidate code at load time\n", stderr);
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
