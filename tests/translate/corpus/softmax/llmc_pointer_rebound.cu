// llm.c's softmax_forward_kernel4: the row pointer `x` is set to the input's row, then rebound to the output's row
// (`x = out + idx * C`) for the sum pass; MLX passes a small input in constant memory, the output in device memory,
// and a Metal pointer has one address space. Block reduction through dynamic shared memory (two arrays in one).
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>
#include <assert.h>

__device__ float warpReduceMax(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val = fmaxf(val, __shfl_down_sync(0xFFFFFFFF, val, offset));
  return val;
}
__device__ float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2) val += __shfl_down_sync(0xFFFFFFFF, val, offset);
  return val;
}

__global__ void softmax_forward_kernel4(float* out, const float* inp, int N, int C) {
  extern __shared__ float shared[];
  int idx = blockIdx.x;
  int tid = threadIdx.x;
  int warpId = threadIdx.x / 32;
  int laneId = threadIdx.x % 32;
  int warpsPerBlock = blockDim.x / 32;
  float* maxvals = shared;
  float* sumvals = &shared[warpsPerBlock];
  const float* x = inp + idx * C;
  float maxval = -INFINITY;
  for (int i = tid; i < C; i += blockDim.x) maxval = fmaxf(maxval, x[i]);
  maxval = warpReduceMax(maxval);
  if (laneId == 0) maxvals[warpId] = maxval;
  __syncthreads();
  if (tid == 0) {
    float val = maxvals[tid];
    for (int i = 1; i < warpsPerBlock; i++) val = fmaxf(val, maxvals[i]);
    maxvals[0] = val;
  }
  __syncthreads();
  float offset = maxvals[0];
  for (int i = tid; i < C; i += blockDim.x) out[idx * C + i] = expf(x[i] - offset);
  x = out + idx * C;
  float sumval = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) sumval += x[i];
  sumval = warpReduceSum(sumval);
  if (laneId == 0) sumvals[warpId] = sumval;
  __syncthreads();
  if (tid == 0) {
    float val = sumvals[tid];
    for (int i = 1; i < warpsPerBlock; ++i) val += sumvals[i];
    sumvals[0] = val;
  }
  __syncthreads();
  float sum = sumvals[0];
  for (int i = tid; i < C; i += blockDim.x) out[idx * C + i] = x[i] / sum;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int block_size = 128;
  size_t shared_mem_size = 2 * block_size / 32 * sizeof(float);
  softmax_forward_kernel4<<<rows, block_size, shared_mem_size, stream>>>(y, x, (int)rows, (int)cols);
}
