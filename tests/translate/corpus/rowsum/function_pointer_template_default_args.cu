// rowsum: a __device__ function template taking its warp reduction as a function-pointer template argument
// (`template <float (*reduce)(float)>`), given `warp_sum` and `&warp_max` at calls that leave its default argument
// out; the row's sum plus 0 times its maximum.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <float (*reduce)(float)>
__device__ float row_reduce(const float* row, int64_t cols, float init, float scale = 1.f) {
  float v = init;
  for (int64_t c = threadIdx.x; c < cols; c += 32) v = (init == 0.f) ? v + row[c] : fmaxf(v, row[c]);
  return scale * reduce(v);
}

__global__ void rowsum_fnptr(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* row = x + int64_t(blockIdx.x) * cols;
  const float s = row_reduce<warp_sum>(row, cols, 0.f);
  const float m = row_reduce<&warp_max>(row, cols, -INFINITY, 1.f);
  if (threadIdx.x == 0) y[blockIdx.x] = s + 0.f * m;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_fnptr<<<rows, 32, 0, stream>>>(x, y, cols);
}
