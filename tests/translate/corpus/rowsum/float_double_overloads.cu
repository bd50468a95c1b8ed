// A helper library with float and double overloads of each function (`warp_sum(float)` beside `warp_sum(double)`, a
// `to_acc` function template's float and double explicit specializations) and a row view whose const and non-const
// `operator[]` overloads stand side by side: narrowed to float, the double overloads would be second definitions of
// the float ones (left out), the const pair must stay.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T> __device__ T to_acc(float v);
template <> __device__ float to_acc<float>(float v) { return v; }
template <> __device__ double to_acc<double>(float v) { return static_cast<double>(v); }

struct RowView {
  const float* base;
  int cols;
  __device__ const float& operator[](int c) const { return base[c]; }
  __device__ float operator[](int c) { return base[c]; }
};

__global__ void rowsum_overloads(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const RowView row{x + (int64_t)blockIdx.x * cols, cols};
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) acc += to_acc<float>(row[c]);
  acc = warp_sum(acc);
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_overloads<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
