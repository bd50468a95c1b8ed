// Each row split across gridDim.y blocks: a block-stride partial sum, a shared tree reduction, and
// atomicAdd of the block's partial into the zeroed output (cudaMemsetAsync).
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
__global__ void rowsum_split(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float partial[BLOCK];
  const int row = blockIdx.x;
  float s = 0.f;
  for (int c = blockIdx.y * BLOCK + threadIdx.x; c < cols; c += BLOCK * gridDim.y) s += x[(int64_t)row * cols + c];
  partial[threadIdx.x] = s;
  __syncthreads();
#pragma unroll
  for (int o = BLOCK / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) partial[threadIdx.x] += partial[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(y + row, partial[0]);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kBlock = 64;
  cudaMemsetAsync(y, 0, rows * sizeof(float), stream);
  const dim3 grid(rows, 3);
  rowsum_split<kBlock><<<grid, kBlock, 0, stream>>>(x, y, (int)cols);
}
