// A static __shared__ array at file scope (an extern one is each kernel's dynamic shared memory).
#include <cuda_runtime.h>
#include <stdint.h>

__shared__ float partial[256];

__global__ void rowsum_kernel(const float* x, float* y, int cols) {
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[blockIdx.x * cols + c];
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int t = 1; t < blockDim.x; ++t) s += partial[t];
    y[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<<<rows, 256, 0, stream>>>(x, y, cols);
}
