// expect: rejected (driver-api, object-imports): cuda.h is allowed for TMA tensor maps, but no driver function beyond cuTensorMapEncodeTiled: here the copy runs on a driver stream of its own, outside the timed stream.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k(const float* x, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) y[i] = x[i];
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  CUstream mine;
  cuStreamCreate(&mine, CU_STREAM_NON_BLOCKING);
  k<<<256, 256, 0, reinterpret_cast<cudaStream_t>(mine)>>>(x, y, rows * cols);
}
