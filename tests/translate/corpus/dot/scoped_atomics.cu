// Scoped atomics: atomicAdd_block into a __shared__ block sum, atomicMax_block on a shared int,
// atomicAdd_system of each block's sum into the zeroed output.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void dot_scoped(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n) {
  __shared__ float block_sum;
  __shared__ int last_active;
  if (threadIdx.x == 0) {
    block_sum = 0.f;
    last_active = -1;
  }
  __syncthreads();
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += x[i] * w[i];
  atomicAdd_block(&block_sum, s);
  if (blockIdx.x * blockDim.x + threadIdx.x < n) atomicMax_block(&last_active, (int)threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0 && last_active >= 0) atomicAdd_system(y, block_sum);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  dot_scoped<<<4, 256, 0, stream>>>(x, w, y, (int)n);
}
