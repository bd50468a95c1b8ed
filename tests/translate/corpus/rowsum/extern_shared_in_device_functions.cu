// Dynamic shared memory named in __device__ functions: a helper declaring its own `extern __shared__ float
// partial[]`, and a file-scope `extern __shared__ float stage[]` that the kernel fills and a second helper reads, so
// that the kernel's and the helpers' arrays are the same memory (as every extern __shared__ array is in CUDA).
#include <cuda_runtime.h>
#include <stdint.h>

extern __shared__ float stage[];

__device__ float tree_sum(float v) {
  extern __shared__ float partial[];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

// The staged values of this thread's slot and the one half a block away, summed (what the kernel wrote).
__device__ float staged_pair(unsigned half) { return stage[threadIdx.x] + (threadIdx.x < half ? stage[threadIdx.x + half] : 0.f); }

__global__ void row_sums(const float* __restrict__ x, float* __restrict__ y, int cols) {
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[(size_t)blockIdx.x * cols + c];
  stage[threadIdx.x] = acc;
  __syncthreads();
  const float pair = threadIdx.x < blockDim.x / 2 ? staged_pair(blockDim.x / 2) : 0.f;
  __syncthreads();
  const float t = tree_sum(pair);
  if (threadIdx.x == 0) y[blockIdx.x] = t;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  row_sums<<<rows, 128, 128 * sizeof(float), stream>>>(x, y, (int)cols);
}
