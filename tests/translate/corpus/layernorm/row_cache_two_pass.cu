// layernorm: the row cached in dynamic shared memory (cols floats, the block size a power of two chosen by a
// host helper's loop), the mean then the centred variance in two passes over the cache, a tree reduction with
// unsigned strides and a __syncwarp-ed warp tail on volatile shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

static int pick_threads(int64_t cols) {
  int t = 32;
  while (t < cols && t < 512) t <<= 1;
  return t;
}

template <unsigned kMaxThreads>
__device__ float block_reduce_sum(float v, float* red) {
  const unsigned tid = threadIdx.x;
  red[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile float* vr = red;
    if (blockDim.x >= 64) vr[tid] += vr[tid + 32];
    __syncwarp();
    for (unsigned s = 16; s > 0; s >>= 1) {
      if (tid < s) vr[tid] += vr[tid + s];
      __syncwarp();
    }
  }
  __syncthreads();
  const float total = red[0];
  __syncthreads();
  return total;
}

__global__ void layernorm_cached(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y, int cols, float eps) {
  extern __shared__ float cache[];
  __shared__ float red[512];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = xr[c];
    cache[c] = v;
    s += v;
  }
  const float mean = block_reduce_sum<512>(s, red) / cols;
  float q = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = cache[c] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_reduce_sum<512>(q, red) / cols + eps);
  float* yr = y + (size_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (cache[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const int threads = pick_threads(cols);
  layernorm_cached<<<(unsigned)rows, threads, cols * sizeof(float), stream>>>(x, gamma, beta, y, (int)cols, eps);
}
