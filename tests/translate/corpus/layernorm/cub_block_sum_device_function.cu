// cub::BlockReduce inside a __device__ function template (the block-sum helper of many normalization kernels):
// its typedef and __shared__ TempStorage live in the helper, which broadcasts thread 0's sum through a __shared__
// float; called for the mean and then the variance. 160 threads (5 warps).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
__device__ __forceinline__ float block_all_sum(float v) {
  typedef cub::BlockReduce<float, BLOCK> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float result;
  const float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) result = s;
  __syncthreads();
  return result;
}

template <int BLOCK>
__global__ void layernorm_cub(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                              float* __restrict__ y, int cols, float eps) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  float* out = y + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) s += row[c];
  const float mean = block_all_sum<BLOCK>(s) / cols;
  float q = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) q += (row[c] - mean) * (row[c] - mean);
  const float rstd = rsqrtf(block_all_sum<BLOCK>(q) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols, float eps,
                          cudaStream_t stream) {
  layernorm_cub<160><<<rows, 160, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
