// FasterTransformer's blockReduceSum<T> with `static __shared__ T shared[32]`, called without template arguments from a
// kernel template (`acc = blockReduceSum(acc)` of a `scalar_t`): the hoisted array's type is deduced from the argument,
// as the kernel's own template parameter; warpReduceSum deduced the same way, `blockDim.x / 32.f`, a (T)(0.0f) cast.
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T>
__device__ __forceinline__ T warpReduceSum(T val) {
  for (int mask = 16; mask > 0; mask >>= 1) val += __shfl_xor_sync(0xffffffff, val, mask, 32);
  return val;
}
template <typename T>
__device__ __forceinline__ T blockReduceSum(T val) {
  static __shared__ T shared[32];
  int lane = threadIdx.x & 0x1f;
  int wid = threadIdx.x >> 5;
  val = warpReduceSum(val);
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < (blockDim.x / 32.f)) ? shared[lane] : (T)(0.0f);
  val = warpReduceSum(val);
  return val;
}
template <typename scalar_t>
__global__ void rowsum_kernel(const scalar_t* x, scalar_t* y, int cols) {
  scalar_t acc = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[blockIdx.x * cols + c];
  acc = blockReduceSum(acc);
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<float><<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
