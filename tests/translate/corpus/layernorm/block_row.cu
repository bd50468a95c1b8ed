// One block per row, a BLOCK_SIZE template parameter: mean and variance by __syncthreads tree
// reductions in shared memory (two passes over the row), rsqrtf.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_SIZE>
__device__ float block_sum(float v, float* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  const float total = buf[0];
  __syncthreads();  // buf is reused by the next reduction
  return total;
}

template <int BLOCK_SIZE>
__global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                               float* __restrict__ y, int cols, float eps) {
  __shared__ float buf[BLOCK_SIZE];
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) s += in[c];
  const float mean = block_sum<BLOCK_SIZE>(s, buf) / cols;
  float sq = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) {
    const float d = in[c] - mean;
    sq += d * d;
  }
  const float rstd = rsqrtf(block_sum<BLOCK_SIZE>(sq, buf) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) out[c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  constexpr int kBlock = 256;
  layernorm_rows<kBlock><<<rows, kBlock, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
