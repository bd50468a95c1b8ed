// Untranslatable: a reference member (line 7) bound to __shared__ storage (a hand-written CUB-style BlockReduce).
#include <cuda_runtime.h>
#include <stdint.h>
template <int BLOCK>
struct BlockSum {
  struct TempStorage { float warp_sums[BLOCK / 32]; };
  TempStorage& temp;
  __device__ explicit BlockSum(TempStorage& t) : temp(t) {}
  __device__ float Sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) temp.warp_sums[warp] = v;
    __syncthreads();
    float t = 0.f;
    if (threadIdx.x == 0)
      for (int w = 0; w < BLOCK / 32; ++w) t += temp.warp_sums[w];
    return t;
  }
};
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) rowsum_cubish(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using Reduce = BlockSum<BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) v += x[(int64_t)blockIdx.x * cols + c];
  const float total = Reduce(storage).Sum(v);
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cubish<128><<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
