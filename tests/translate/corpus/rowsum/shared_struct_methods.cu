// Methods of a struct called on __shared__ objects: an element of a shared array indexed by threadIdx
// (red[threadIdx.x / 32].merge(acc)), a member operator+= on one, a const method of a shared scalar
// (Metal's `this` is a thread pointer unless the method is declared `threadgroup`).
#include <cuda_runtime.h>
#include <stdint.h>

struct SumCount {
  float sum;
  int count;
  __device__ void add(float v) {
    sum += v;
    count += 1;
  }
  __device__ void merge(const SumCount& o) {
    sum += o.sum;
    count += o.count;
  }
  __device__ SumCount& operator+=(const SumCount& o) {
    merge(o);
    return *this;
  }
  __device__ float total() const { return count > 0 ? sum : 0.f; }
};

__global__ void rowsum_shared_struct(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ SumCount red[8];
  __shared__ SumCount block_total;
  SumCount acc{0.f, 0};
  const float* row = x + (size_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc.add(row[c]);
  for (int o = 16; o > 0; o >>= 1) {
    const SumCount other{__shfl_xor_sync(0xffffffff, acc.sum, o), __shfl_xor_sync(0xffffffff, acc.count, o)};
    acc += other;
  }
  if (threadIdx.x % 32 == 0) {
    red[threadIdx.x / 32] = SumCount{0.f, 0};
    red[threadIdx.x / 32].merge(acc);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    block_total = red[0];
    for (int w = 1; w < (int)blockDim.x / 32; ++w) block_total += red[w];
  }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = block_total.total();
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_shared_struct<<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
