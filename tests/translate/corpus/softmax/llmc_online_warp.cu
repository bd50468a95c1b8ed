// llm.c's softmax_forward_online_kernel: one warp per row, an online max/sum per lane merged across the
// warp with __shfl_xor_sync, then the normalized row written with expf.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

struct SumMax {
  float maxval;
  float sum;
};

__device__ __forceinline__ SumMax reduce_sum_max_op(SumMax a, SumMax b) {
  const bool a_bigger = a.maxval > b.maxval;
  const SumMax bigger = a_bigger ? a : b;
  const SumMax smaller = a_bigger ? b : a;
  SumMax res;
  res.maxval = bigger.maxval;
  res.sum = bigger.sum + smaller.sum * expf(smaller.maxval - bigger.maxval);
  return res;
}

__global__ void softmax_forward_online_kernel(float* out, const float* inp, int N, int C) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float maxval = -FLT_MAX;
  float sum = 0.0f;
  for (int i = lane; i < C; i += 32) {
    const float v = x[i];
    if (v > maxval) {
      sum *= expf(maxval - v);
      maxval = v;
    }
    sum += expf(v - maxval);
  }
  SumMax sm = {maxval, sum};
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    SumMax other;
    other.maxval = __shfl_xor_sync(0xFFFFFFFF, sm.maxval, offset);
    other.sum = __shfl_xor_sync(0xFFFFFFFF, sm.sum, offset);
    sm = reduce_sum_max_op(sm, other);
  }
  const float norm = 1.0f / sm.sum;
  for (int i = lane; i < C; i += 32) out[(size_t)row * C + i] = expf(x[i] - sm.maxval) * norm;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int block_size = 256;
  const int rows_per_block = block_size / 32;
  const int grid_size = (int)((rows + rows_per_block - 1) / rows_per_block);
  softmax_forward_online_kernel<<<grid_size, block_size, 0, stream>>>(y, x, (int)rows, (int)cols);
}
