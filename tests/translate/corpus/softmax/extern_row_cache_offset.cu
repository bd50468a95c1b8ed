// softmax: the row cached in extern __shared__ memory sized by the host as (cols + warps) floats, the reduction
// scratch placed after the row (a pointer offset by the run-time cols), cudaFuncSetAttribute for the dynamic
// size, max and sum through a templated block reduction given functor types.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
  static constexpr float identity() { return -FLT_MAX; }
};
struct SumOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
  static constexpr float identity() { return 0.f; }
};

template <typename Op>
__device__ __forceinline__ float block_allreduce(float v, float* scratch) {
  Op op;
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  if (lane == 0) scratch[wid] = v;
  __syncthreads();
  float r = lane < warps ? scratch[lane] : Op::identity();
  for (int o = 16; o > 0; o >>= 1) r = op(r, __shfl_xor_sync(0xffffffffu, r, o));
  __syncthreads();  // scratch is reused by the next reduction
  return r;
}

__global__ void softmax_cached(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float smem[];
  float* row = smem;
  float* scratch = smem + cols;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float m = MaxOp::identity();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = xr[c];
    row[c] = v;
    m = fmaxf(m, v);
  }
  m = block_allreduce<MaxOp>(m, scratch);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float e = __expf(row[c] - m);
    row[c] = e;
    s += e;
  }
  s = block_allreduce<SumOp>(s, scratch);
  const float inv = __fdividef(1.f, s);
  float* yr = y + (size_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = row[c] * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  const size_t smem = (size_t)(cols + threads / 32) * sizeof(float);
  cudaFuncSetAttribute(softmax_cached, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  softmax_cached<<<(unsigned)rows, threads, smem, stream>>>(x, y, (int)cols);
}
