// __threadfence_block inside if (lane == 0) after a shared float atomicAdd: a fence, not a barrier.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_smem_atomic(const float* x, float* y, int cols) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0.f;
  __syncthreads();
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(int64_t)blockIdx.y * cols + c];
  s += __shfl_xor_sync(0xffffffff, s, 16);
  s += __shfl_xor_sync(0xffffffff, s, 8);
  s += __shfl_xor_sync(0xffffffff, s, 4);
  s += __shfl_xor_sync(0xffffffff, s, 2);
  s += __shfl_xor_sync(0xffffffff, s, 1);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&total, s);
    __threadfence_block();
  }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.y] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(96);
  dim3 grid(1, rows);
  rowsum_smem_atomic<<<grid, block, 0, stream>>>(x, y, cols);
}
