// Untranslatable: __threadfence_system (line 7) orders memory for the host; Metal's fences reach
// the device at most.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_publish(const float* x, float* y, volatile int* flag) {
  y[blockIdx.x] = x[blockIdx.x];
  __threadfence_system();
  if (threadIdx.x == 0) *flag = 1;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_publish<<<rows, 1, 0, stream>>>(x, y, nullptr);
}
