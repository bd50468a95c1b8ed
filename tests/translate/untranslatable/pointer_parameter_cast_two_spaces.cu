// Untranslatable: a helper's cast of its pointer parameter (line 6), which the calls give into shared memory (line 13)
// and into global memory (line 14): a Metal cast names one address space, so one text cannot serve both calls.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ float first_pair(const float* buf) {
  const float2* p = reinterpret_cast<const float2*>(buf);
  return p[0].x + p[0].y;
}
__global__ void k_two_spaces(const float* x, float* y, int cols) {
  __shared__ float part[64];
  part[threadIdx.x] = x[(int64_t)blockIdx.x * cols + threadIdx.x % cols];
  __syncthreads();
  const float shared_pair = first_pair(part);
  const float global_pair = first_pair(x + (int64_t)blockIdx.x * cols);
  if (threadIdx.x == 0) y[blockIdx.x] = shared_pair + 0.0f * global_pair;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_two_spaces<<<rows, 64, 0, stream>>>(x, y, cols);
}
