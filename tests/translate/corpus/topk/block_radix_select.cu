// Top-k by repeated block argmax: a block per row copies the row into dynamic shared memory sized
// at launch (cols floats), then K times finds the maximum with a shared-memory tree over
// (value, index) pairs in a struct, and knocks it out with -INFINITY; the reduction helper
// takes the struct by reference.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

struct ValueIndex {
  float value;
  int index;
};

__device__ __forceinline__ void keep_larger(ValueIndex& a, const ValueIndex& b) {
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) a = b;
}

__global__ void topk_block(const float* __restrict__ x, float* __restrict__ y, int cols, int k) {
  extern __shared__ float row_values[];
  __shared__ ValueIndex partial[128];
  const int tid = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * cols;
  for (int c = tid; c < cols; c += blockDim.x) row_values[c] = in[c];
  __syncthreads();
  for (int round = 0; round < k; ++round) {
    ValueIndex best{-CUDART_INF_F, cols};
    for (int c = tid; c < cols; c += blockDim.x) keep_larger(best, ValueIndex{row_values[c], c});
    partial[tid] = best;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (tid < stride) keep_larger(partial[tid], partial[tid + stride]);
      __syncthreads();
    }
    if (tid == 0) {
      y[(size_t)blockIdx.x * k + round] = partial[0].value;
      row_values[partial[0].index] = -CUDART_INF_F;
    }
    __syncthreads();
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  topk_block<<<rows, threads, cols * sizeof(float), stream>>>(x, y, (int)cols, 4);
}
