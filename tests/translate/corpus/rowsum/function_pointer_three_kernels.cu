// Three kernels behind a typedef'd function pointer that nested conditionals initialize (`&` on some): a warp per
// row for short rows, a block of 128 for middling ones, a block of 512 with a two-level shuffle reduction for long
// ones; the block size and shared bytes chosen by the same conditions.
#include <cuda_runtime.h>
#include <stdint.h>

typedef void (*RowKernel)(const float*, float*, int);

__global__ void rows_by_warp(const float* x, float* y, int cols) {
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) acc += x[(int64_t)blockIdx.x * cols + c];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
}

__global__ void rows_by_block(const float* x, float* y, int cols) {
  extern __shared__ float partial[];
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[(int64_t)blockIdx.x * cols + c];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

__global__ void rows_by_warps(const float* x, float* y, int cols) {
  __shared__ float warp_sums[16];
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[(int64_t)blockIdx.x * cols + c];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.f;
    for (int o = 8; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) y[blockIdx.x] = acc;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const RowKernel kernel = cols <= 64 ? rows_by_warp : (cols <= 2048 ? &rows_by_block : &rows_by_warps);
  const int threads = cols <= 64 ? 32 : (cols <= 2048 ? 128 : 512);
  const size_t shared = cols <= 64 || cols > 2048 ? 0 : threads * sizeof(float);
  kernel<<<rows, threads, shared, stream>>>(x, y, (int)cols);
}
