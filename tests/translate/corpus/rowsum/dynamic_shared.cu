// extern __shared__ sized at launch (threads * sizeof(float)).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_dyn(const float* x, float* y, int cols) {
  extern __shared__ float sdata[];
  const unsigned tid = threadIdx.x;
  float s = 0.0f;
  for (int c = tid; c < cols; c += blockDim.x) s += x[(size_t)blockIdx.x * cols + c];
  sdata[tid] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) sdata[tid] += sdata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) y[blockIdx.x] = sdata[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  rowsum_dyn<<<rows, threads, threads * sizeof(float), stream>>>(x, y, cols);
}
