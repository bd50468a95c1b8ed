// expect: rejected (object-load-time-code): a namespace-scope object whose constructor runs when the library is loaded (no `constructor` attribute for the rules on names to see), the place for work done once, outside every timed call.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void warm(float* sink) {
  if (sink) sink[0] = 1.0f;
}
struct AtLoad {
  AtLoad() { warm<<<1, 1>>>(nullptr); }
};
AtLoad at_load;
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
