// The kernel passes its dynamic shared buffer to a __device__ reduction helper as a pointer, and a
// __restrict__ local pointer with #pragma unroll 4.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float block_reduce(float* smem, float v) {
  smem[threadIdx.x] = v;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) smem[threadIdx.x] += smem[threadIdx.x + o];
    __syncthreads();
  }
  return smem[0];
}

__global__ void rowsum_k(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float smem[];
  const float* __restrict__ row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c];
  const float total = block_reduce(smem, s);
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const size_t threads = 256;
  rowsum_k<<<rows, threads, threads * sizeof(float), stream>>>(x, y, (int)cols);
}
