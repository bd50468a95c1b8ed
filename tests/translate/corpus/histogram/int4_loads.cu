// int4 vector loads (reinterpret_cast<const int4*>), a shared histogram with atomicAdd, C-style
// casts, and a __host__ __device__ constexpr helper used in the kernel and the launch.
#include <cuda_runtime.h>
#include <stdint.h>

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

__device__ __forceinline__ void count(int* bins, int v) { atomicAdd(&bins[((v % 64) + 64) % 64], 1); }

__global__ void histogram_vec(const int* __restrict__ const x, int* __restrict__ counts, int n) {
  __shared__ int bins[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const int quads = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < cdiv(n, 4); i += gridDim.x * blockDim.x) {
    if (i < quads) {
      const int4 q = ((const int4*)x)[i];
      count(bins, q.x);
      count(bins, q.y);
      count(bins, q.z);
      count(bins, q.w);
    } else {
      for (int j = 4 * i; j < n; ++j) count(bins, x[j]);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(counts + b, bins[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 64 * sizeof(int), stream);
  histogram_vec<<<cdiv(cdiv((int)n, 4), 128), 128, 0, stream>>>(x, counts, (int)n);
}
