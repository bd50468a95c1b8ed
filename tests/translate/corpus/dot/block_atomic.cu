// A dot product: a grid-stride partial per thread, a shared-memory tree per block, atomicAdd of the
// block's partial into the zeroed result.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256

__global__ void dot_partial(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ result, int n) {
  __shared__ float cache[THREADS];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += a[i] * b[i];
  cache[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemset(y, 0, sizeof(float));
  const int blocks = (int)((n + THREADS - 1) / THREADS) < 32 ? (int)((n + THREADS - 1) / THREADS) : 32;
  dot_partial<<<blocks, THREADS, 0, stream>>>(x, w, y, (int)n);
}
