// A per-block accumulator in shared memory updated with atomicAdd (float, threadgroup memory).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_atomic(const float* x, float* y, int cols) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0.0f;
  __syncthreads();
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(int64_t)blockIdx.x * cols + c];
  atomicAdd(&total, s);
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_atomic<<<rows, 64, 0, stream>>>(x, y, cols);
}
