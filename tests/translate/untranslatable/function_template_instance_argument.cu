// Untranslatable: a function template's instance (warp_sum<T>, line 16) given to a function-pointer template parameter in
// a kernel template: the port passes functions as function objects, which it does not make for an instance.
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T>
__device__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T, T (*reduce)(T)>
__device__ T apply(T v) { return reduce(v); }
template <typename T>
__global__ void rowsum_k(const T* x, T* y, int cols) {
  T s = 0;
  for (int c = threadIdx.x; c < cols; c += 32) s += x[(int64_t)blockIdx.x * cols + c];
  s = apply<T, warp_sum<T>>(s);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<float><<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
