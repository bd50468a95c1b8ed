// Untranslatable: a writable static local of device code (line 6): state carried from thread to thread and call to
// call, which Metal has no place for.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ float next_scale() {
  static int calls = 0;
  return float(++calls > 0);
}
__global__ void rowsum_counted(const float* x, float* y, int cols) {
  float acc = 0.f;
  for (int c = 0; c < cols; ++c) acc += x[(size_t)blockIdx.x * cols + c];
  y[blockIdx.x] = acc * next_scale();
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_counted<<<rows, 1, 0, stream>>>(x, y, (int)cols);
}
