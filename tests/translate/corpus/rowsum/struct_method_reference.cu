// A reducer struct whose const __device__ method accumulates into a float reference: a register in
// the strided loop, a shared slot in the tree (the method is emitted for both address spaces).
#include <cuda_runtime.h>
#include <stdint.h>

struct SumReducer {
  __device__ void add(float& into, float v) const { into += v; }
};

__global__ void rowsum_method(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float partial[128];
  const SumReducer r;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) r.add(s, x[(size_t)blockIdx.x * cols + c]);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) r.add(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_method<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
