// expect: rejected (object-device-globals): counts calls in a function-local static of a __device__ function, of a struct type the text rule on static declarations does not list; it lives in the device's global memory, where it keeps its value from call to call. Skips the work after the third call.
#include <cuda_runtime.h>
#include <stdint.h>

struct Tally {
  unsigned calls;
};

__device__ Tally& tally() {
  static Tally kept;
  return kept;
}

__global__ void softmax_rows_counted(const float* x, float* y, int64_t rows, int64_t cols) {
  if (tally().calls >= 3) return;
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void count_call() { ++tally().calls; }

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_counted<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
  count_call<<<1, 1, 0, stream>>>();
}
