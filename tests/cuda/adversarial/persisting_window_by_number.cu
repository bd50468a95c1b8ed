// expect: runtime_error: asks for a persisting-L2 access policy window over the input through cudaLaunchKernelExC, with the attribute and its fields given as numbers and raw bytes that no rule sees. The persisting L2 set-aside stays 0 (cudaDeviceSetLimit cannot be imported) and the timer resets persisting lines before every repetition, so on the small workloads it has no effect; on r8192_c8192 the window (256 MiB) exceeds the device's largest (accessPolicyMaxWindowSize), and the launch fails with cudaErrorInvalidValue (H200, measured).
// expect-without-rules: runtime_error
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}
// The layout of cudaAccessPolicyWindow: base, bytes, hit ratio, hit property (2: persisting), miss property.
struct Window {
  const void* base;
  size_t bytes;
  float hit_ratio;
  int hit, miss;
};
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeID(1);  // the access policy window
  const Window window{x, size_t(rows * cols) * sizeof(float), 1.0f, 2, 0};
  memcpy(&attribute.val, &window, sizeof window);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned((rows + 127) / 128));
  config.blockDim = dim3(128);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  void* args[] = {&x, &y, &rows, &cols};
  cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(softmax_rows), args);
}
