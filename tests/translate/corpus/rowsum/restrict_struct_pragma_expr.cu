// __restrict__ on a parameter struct's members, #pragma unroll with a constant expression of
// non-type template parameters, items per thread.
#include <cuda_runtime.h>
#include <stdint.h>

struct RowArgs {
  const float* __restrict__ in;
  float* __restrict__ out;
  int cols;
};

template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads) rowsum_items(RowArgs args) {
  constexpr int kTile = kThreads * kItems;
  __shared__ float warp_sums[kThreads / 32];
  const float* __restrict__ row = args.in + (int64_t)blockIdx.x * args.cols;
  float acc[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) acc[i] = 0.f;
  for (int base = 0; base < args.cols; base += kTile) {
#pragma unroll (kItems)
    for (int i = 0; i < kItems; ++i) {
      const int c = base + i * kThreads + threadIdx.x;
      if (c < args.cols) acc[i] += row[c];
    }
  }
  float s = 0.f;
#pragma unroll kItems / 2
  for (int i = 0; i < kItems; ++i) s += acc[i];
#pragma unroll
  for (int m = 16; m >= 1; m /= 2) s += __shfl_xor_sync(0xffffffffu, s, m);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.f;
#pragma unroll
    for (int m = 16; m >= 1; m /= 2) s += __shfl_xor_sync(0xffffffffu, s, m);
    if (threadIdx.x == 0) args.out[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowArgs args;
  args.in = x;
  args.out = y;
  args.cols = (int)cols;
  rowsum_items<128, 4><<<rows, 128, 0, stream>>>(args);
}
