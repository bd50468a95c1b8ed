// A __host__ __device__ helper in the launch size and in a kernel argument; a grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void axpy_gs(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n, int chunks,
                        float alpha) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = alpha * x[i] + w[i];
  (void)chunks;
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_gs<<<ceil_div(n, 256) / 2 + 1, 256, 0, stream>>>(x, w, y, n, ceil_div(n, 4), alpha);
}
