// softmax: the block size a power of two from __builtin_clz in a host helper (next_pow2(cols), capped at 256),
// a block per row with a shared tree reduction sized by the template maximum.
#include <cuda_runtime.h>
#include <stdint.h>

static inline int next_pow2(int v) { return v <= 1 ? 1 : 1 << (32 - __builtin_clz(v - 1)); }

__global__ void softmax_pow2(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float red[256];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.f / red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int threads = next_pow2((int)cols);
  if (threads > 256) threads = 256;
  if (threads < 32) threads = 32;
  softmax_pow2<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols);
}
