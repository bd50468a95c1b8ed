// topk (k = 4) without CUB or Thrust: each thread keeps a descending top-4 in registers through an
// insertion lambda, the block then merges the threads' lists pairwise in a shared-memory tree
// (`__shared__ float lists[THREADS][K]`), each merge a device lambda taking two shared rows by
// pointer and writing the merged top-4 to a register array, `-FLT_MAX` as the empty slot (rows
// have at least 4 values, so it never survives); templates dispatched on the row length at run time.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

constexpr int K = 4;

template <int THREADS>
__global__ void topk_block_merge(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float lists[THREADS][K];
  const float* row = x + (int64_t)blockIdx.x * cols;
  const int tid = threadIdx.x;

  float top[K];
#pragma unroll
  for (int j = 0; j < K; ++j) top[j] = -FLT_MAX;

  auto insert = [&top](float v) {
    if (v <= top[K - 1]) return;
    int j = K - 1;
    while (j > 0 && top[j - 1] < v) {
      top[j] = top[j - 1];
      --j;
    }
    top[j] = v;
  };
  for (int c = tid; c < cols; c += THREADS) insert(row[c]);

#pragma unroll
  for (int j = 0; j < K; ++j) lists[tid][j] = top[j];
  __syncthreads();

  auto merge = [](const float* a, const float* b, float* out) {
    int i = 0, j = 0;
#pragma unroll
    for (int o = 0; o < K; ++o) {
      if (a[i] >= b[j]) {
        out[o] = a[i];
        ++i;
      } else {
        out[o] = b[j];
        ++j;
      }
    }
  };

  for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
    float merged[K];
    const bool active = tid < stride;
    if (active) merge(lists[tid], lists[tid + stride], merged);
    __syncthreads();
    if (active) {
#pragma unroll
      for (int j = 0; j < K; ++j) lists[tid][j] = merged[j];
    }
    __syncthreads();
  }
  if (tid < K) y[(int64_t)blockIdx.x * K + tid] = lists[0][tid];
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols <= 64) {
    topk_block_merge<32><<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
  } else if (cols <= 1024) {
    topk_block_merge<128><<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
  } else {
    topk_block_merge<256><<<(unsigned)rows, 256, 0, stream>>>(x, y, (int)cols);
  }
}
