// Block size a template parameter chosen by a host switch on a power of two; the reductions run in
// extern __shared__ float of blockDim.x floats (the launch passes the bytes), a tree with #pragma unroll.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

template <int BLOCK, typename Op>
__device__ __forceinline__ float block_reduce(float v, float* red, Op op) {
  red[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = op(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();
  return r;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <int BLOCK>
__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float red[];
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, in[c]);
  m = block_reduce<BLOCK>(m, red, MaxOp());
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) s += __expf(in[c] - m);
  s = block_reduce<BLOCK>(s, red, AddOp());
  const float inv = __fdividef(1.f, s);
  for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int block = 32;
  while (block < cols && block < 512) block *= 2;
  const size_t smem = block * sizeof(float);
  switch (block) {
    case 512: softmax_block<512><<<rows, 512, smem, stream>>>(x, y, (int)cols); break;
    case 256: softmax_block<256><<<rows, 256, smem, stream>>>(x, y, (int)cols); break;
    case 128: softmax_block<128><<<rows, 128, smem, stream>>>(x, y, (int)cols); break;
    case 64: softmax_block<64><<<rows, 64, smem, stream>>>(x, y, (int)cols); break;
    default: softmax_block<32><<<rows, 32, smem, stream>>>(x, y, (int)cols); break;
  }
}
