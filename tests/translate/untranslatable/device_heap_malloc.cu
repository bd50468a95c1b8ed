// The device heap: a block's scratch from malloc in the kernel (and free), which Metal does not have.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_kernel(const float* x, float* y, int cols) {
  __shared__ float* partial;
  if (threadIdx.x == 0) partial = (float*)malloc(blockDim.x * sizeof(float));
  __syncthreads();
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(int64_t)blockIdx.x * cols + c];
  partial[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < blockDim.x; ++k) s += partial[k];
    y[blockIdx.x] = s;
    free(partial);
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
