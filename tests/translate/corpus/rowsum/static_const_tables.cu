// Tables in device code: a __device__ function's static const array and constexpr array, a __constant__ array of
// structs; __activemask() and __syncwarp(mask) around a shuffle reduction.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ float weight_of(int c) {
  static const float table[4] = {1.f, 1.f, 1.f, 1.f};
  constexpr float ones[2] = {1.f, 1.f};
  return table[c & 3] * ones[c & 1];
}
struct Coeffs { float a, b; };
__constant__ Coeffs kCoeffs[2] = {{1.f, 0.f}, {1.f, 0.f}};
__global__ void rowsum_tables(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) acc += row[c] * weight_of(c) * kCoeffs[c & 1].a + kCoeffs[c & 1].b;
  unsigned mask = __activemask();
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(mask, acc, o);
  __syncwarp(mask);
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tables<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
