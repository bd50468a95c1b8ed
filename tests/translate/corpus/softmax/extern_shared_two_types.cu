// One dynamic shared buffer cast to two types: the row cached as floats, then an int flag and the
// per-warp partials after it; the host sizes it from the row length.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void softmax_cached(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ unsigned char smem_raw[];
  float* row = reinterpret_cast<float*>(smem_raw);
  float* partial = row + cols;
  int* n_warps = reinterpret_cast<int*>(partial + 32);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) *n_warps = (blockDim.x + 31) / 32;
  const float* in = x + (size_t)blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    row[c] = in[c];
    m = fmaxf(m, row[c]);
  }
  m = warp_max(m);
  if (lane == 0) partial[warp] = m;
  __syncthreads();
  if (warp == 0) {
    float v = lane < *n_warps ? partial[lane] : -FLT_MAX;
    v = warp_max(v);
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  const float row_max = partial[0];
  __syncthreads();
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float e = __expf(row[c] - row_max);
    row[c] = e;
    s += e;
  }
  s = warp_sum(s);
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    float v = lane < *n_warps ? partial[lane] : 0.f;
    v = warp_sum(v);
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  const float inv = 1.f / partial[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = row[c] * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  const size_t smem = cols * sizeof(float) + 32 * sizeof(float) + sizeof(int);
  softmax_cached<<<(unsigned)rows, threads, smem, stream>>>(x, y, (int)cols);
}
