// The runtime's generic launch with the arguments' addresses in a std::vector (some launchers build the list
// before choosing the kernel): cudaLaunchKernel(kernel, grid, block, args.data(), 0, stream), a block per row.
#include <cuda_runtime.h>
#include <stdint.h>
#include <vector>

__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float red[8];
  __shared__ float shared_value;
  const float* in = x + int64_t(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float v = red[0];
    for (int w = 1; w < 8; ++w) v = fmaxf(v, red[w]);
    shared_value = v;
  }
  __syncthreads();
  m = shared_value;
  __syncthreads();
  float s = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(in[c] - m);
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float v = 0.0f;
    for (int w = 0; w < 8; ++w) v += red[w];
    shared_value = v;
  }
  __syncthreads();
  const float inv = 1.0f / shared_value;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[int64_t(blockIdx.x) * cols + c] = expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  std::vector<void*> args = {(void*)&x, (void*)&y, &cols};
  cudaLaunchKernel((const void*)softmax_block, dim3(unsigned(rows)), dim3(256), args.data(), 0, stream);
}
