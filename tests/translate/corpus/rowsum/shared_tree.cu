// Static shared memory, tree reduction with __syncthreads, one block per row.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_tree(const float* x, float* y, int cols) {
  __shared__ float partial[256];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) rowsum_tree<<<rows, 256, 0, stream>>>(x, y, cols);
}
