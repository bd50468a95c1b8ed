// Const methods of a struct called on __shared__ objects (per_warp[w].combined(t), total.scale_to(...)),
// one calling another on its own object (an implicit this->): each gets a threadgroup overload.
#include <cuda_runtime.h>
#include <stdint.h>
struct MaxSum {
  float m, s;
  __device__ float scale_to(float nm) const { return s * __expf(m - nm); }
  __device__ MaxSum combined(const MaxSum& o) const {
    const float nm = fmaxf(m, o.m);
    return MaxSum{nm, scale_to(nm) + o.scale_to(nm)};
  }
};
__global__ void softmax_shared_methods(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ MaxSum per_warp[4];
  __shared__ MaxSum total;
  const float* in = x + (size_t)blockIdx.x * cols;
  MaxSum a{-1e30f, 0.f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) a = a.combined(MaxSum{in[c], 1.f});
  for (int o = 16; o > 0; o >>= 1) a = a.combined(MaxSum{__shfl_xor_sync(~0u, a.m, o), __shfl_xor_sync(~0u, a.s, o)});
  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    MaxSum t = per_warp[0];
    for (int w = 1; w < 4; ++w) t = per_warp[w].combined(t);
    total = t;
  }
  __syncthreads();
  const float inv = 1.f / total.scale_to(total.m);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = __expf(in[c] - total.m) * inv;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_shared_methods<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
