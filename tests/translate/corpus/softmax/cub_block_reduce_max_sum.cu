// The PyTorch / FasterTransformer softmax: a typedef of cub::BlockReduce, `Reduce(v, cub::Max())` then `Sum(v)` on
// one TempStorage, each result broadcast through a __shared__ scalar after __syncthreads; 192 threads (6 warps).
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

template <typename T, int BLOCK_SIZE>
__global__ void softmax_block(const T* __restrict__ input, T* __restrict__ output, int cols) {
  typedef cub::BlockReduce<float, BLOCK_SIZE> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp_storage;
  __shared__ float s_max, s_sum;
  const T* row = input + (int64_t)blockIdx.x * cols;
  T* out = output + (int64_t)blockIdx.x * cols;

  float local_max = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) local_max = fmaxf(local_max, (float)row[c]);
  const float block_max = BlockReduce(temp_storage).Reduce(local_max, cub::Max());
  if (threadIdx.x == 0) s_max = block_max;
  __syncthreads();

  float local_sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) local_sum += __expf((float)row[c] - s_max);
  const float block_sum = BlockReduce(temp_storage).Sum(local_sum);
  if (threadIdx.x == 0) s_sum = block_sum;
  __syncthreads();

  const float inv = 1.f / s_sum;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) out[c] = (T)(__expf((float)row[c] - s_max) * inv);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_block<float, 192><<<rows, 192, 0, stream>>>(x, y, (int)cols);
}
