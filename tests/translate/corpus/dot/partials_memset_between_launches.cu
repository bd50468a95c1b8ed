// Two kernels: per-block partial products into a cudaMalloc'd scratch buffer, then the output zeroed by
// cudaMemsetAsync between the launches (no launch before it names the output) and a kernel of several blocks that
// adds the partials into it with atomicAdd. The memset becomes the second kernel's init_value.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 256;

__global__ void block_partials(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ partial, int n) {
  __shared__ float cache[kThreads];
  float s = 0.0f;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += kThreads * gridDim.x) s += x[i] * w[i];
  cache[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

__global__ void add_partials(const float* __restrict__ partial, float* __restrict__ y, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) atomicAdd(y, partial[i]);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  const int blocks = 8;
  float* partial = nullptr;
  cudaMallocAsync(&partial, blocks * sizeof(float), stream);
  block_partials<<<blocks, kThreads, 0, stream>>>(x, w, partial, (int)n);
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  add_partials<<<2, 4, 0, stream>>>(partial, y, blocks);
  cudaFreeAsync(partial, stream);
}
