// expect: passed: defines cudaEventElapsedTime and cudaDeviceSynchronize under their link names (asm labels, which no rule on names sees), so that a timer calling them would read 1 us and not wait; the runner's calls were bound to libcudart when it started (full RELRO) and the candidate is loaded with RTLD_LOCAL, so its definitions replace nothing and the slow kernel is timed as it runs.
// expect-without-rules: passed
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" __attribute__((visibility("default"))) cudaError_t reported_elapsed(float* ms, cudaEvent_t, cudaEvent_t) __asm__("cudaEventElapsedTime");
extern "C" __attribute__((visibility("default"))) cudaError_t skipped_wait() __asm__("cudaDeviceSynchronize");
extern "C" cudaError_t reported_elapsed(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}
extern "C" cudaError_t skipped_wait() { return cudaSuccess; }

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
