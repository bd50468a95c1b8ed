// A method of a struct template that reads threadIdx, called in a template kernel on objects of a
// dependent type (a temporary `Reduce().Sum(v, warp_sums)` and a local): clang leaves such calls
// unresolved, and the built-in parameters the method gets are passed at each.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
struct BlockSum {
  __device__ float Sum(float v, float* warp_sums) const {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    float t = 0.f;
    if (threadIdx.x == 0)
      for (int w = 0; w < BLOCK / 32; ++w) t += warp_sums[w];
    __syncthreads();
    return t;
  }
  __device__ float Strided(const float* row, int cols) const {
    float v = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) v += row[c];
    return v;
  }
};

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) rowsum_dependent(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using Reduce = BlockSum<BLOCK>;
  __shared__ float warp_sums[BLOCK / 32];
  const Reduce reduce;
  const float v = reduce.Strided(x + (int64_t)blockIdx.x * cols, cols);
  const float total = Reduce().Sum(v, warp_sums);
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_dependent<128><<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
