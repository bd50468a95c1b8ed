// A deterministic dot product: the first kernel writes one partial per block to a scratch buffer
// (dynamic shared memory sized at launch), the second sums the partials with one block.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void dot_blocks(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ partials, int n) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
  float v = 0.0f;
  if (i < n) v = x[i] * w[i];
  if (i + blockDim.x < n) v += x[i + blockDim.x] * w[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

__global__ void sum_partials(const float* __restrict__ partials, float* __restrict__ out, int count) {
  extern __shared__ float sdata[];
  float v = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) v += partials[i];
  sdata[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sdata[0];
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  const int threads = 128;
  const int blocks = (int)((n + threads * 2 - 1) / (threads * 2));
  float* partials;
  cudaMalloc(&partials, blocks * sizeof(float));
  dot_blocks<<<blocks, threads, threads * sizeof(float), stream>>>(x, w, partials, (int)n);
  sum_partials<<<1, 64, 64 * sizeof(float), stream>>>(partials, y, blocks);
  cudaFree(partials);
}
