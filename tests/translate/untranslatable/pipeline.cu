// Untranslatable: the cp.async pipeline intrinsics (line 6).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_pipe(const float* x, float* y, int cols) {
  __shared__ float buf[32];
  __pipeline_memcpy_async(&buf[threadIdx.x], x + threadIdx.x, sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  if (threadIdx.x == 0) y[blockIdx.x] = buf[0] * cols;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_pipe<<<rows, 32, 0, stream>>>(x, y, cols);
}
