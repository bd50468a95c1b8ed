// topk: a block per row; every thread's sorted top 4 written to extern __shared__ bytes partitioned into a float
// array and an int array of valid counts (reinterpret_cast of the byte buffer and of the float array's end),
// then a tree merge of the lists halving the active threads.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int K = 4;

__device__ __forceinline__ void insert_sorted(float (&list)[K], int& count, float v) {
  if (count == K && v <= list[K - 1]) return;
  int i = count < K ? count : K - 1;
  while (i > 0 && list[i - 1] < v) {
    list[i] = list[i - 1];
    --i;
  }
  list[i] = v;
  if (count < K) ++count;
}

__global__ void topk_block_merge(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* vals = reinterpret_cast<float*>(smem);
  int* counts = reinterpret_cast<int*>(vals + blockDim.x * K);
  const float* xr = x + (size_t)blockIdx.x * cols;
  float list[K];
  int count = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) insert_sorted(list, count, xr[c]);
  for (int i = 0; i < count; ++i) vals[threadIdx.x * K + i] = list[i];
  counts[threadIdx.x] = count;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const unsigned other = threadIdx.x + s;
      for (int i = 0; i < counts[other]; ++i) insert_sorted(list, count, vals[other * K + i]);
    }
    __syncthreads();
    if (threadIdx.x < s) {
      for (int i = 0; i < count; ++i) vals[threadIdx.x * K + i] = list[i];
      counts[threadIdx.x] = count;
    }
    __syncthreads();
  }
  if (threadIdx.x < K) y[(size_t)blockIdx.x * K + threadIdx.x] = vals[threadIdx.x];
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kThreads = 64;
  const size_t smem = kThreads * K * sizeof(float) + kThreads * sizeof(int);
  topk_block_merge<<<(unsigned)rows, kThreads, smem, stream>>>(x, y, (int)cols);
}
