// Softmax with one templated block reduction given lambdas as its operation (`fmaxf` and `+`), as CUB-style code
// passes functors: `block_reduce(v, scratch, [](float a, float b) { return fmaxf(a, b); })`.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < warps; ++w) v = op(v, scratch[w]);
  __syncthreads();
  return v;
}

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float scratch[32];
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  m = block_reduce(m, scratch, [](float a, float b) { return fmaxf(a, b); });
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[c] - m);
  const auto add = [](float a, float b) -> float { return a + b; };
  s = block_reduce(s, scratch, add);
  const float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows<<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
