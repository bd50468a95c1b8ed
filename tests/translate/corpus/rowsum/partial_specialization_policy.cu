// rowsum: a reduction policy chosen by a class template's partial specializations (`row_policy<float, W>` with a
// static __device__ method, a butterfly from lane distance W / 2, `row_policy<float4, W>` reducing a vector first), as vector
// helpers like FlashInfer's vec_t<float, N> are written; float4 loads where the row allows them.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T, int W>
struct row_policy;

template <int W>
struct row_policy<float, W> {
  static __device__ float reduce(float v) {
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
};

template <int W>
struct row_policy<float4, W> {
  static __device__ float reduce(float4 v) { return row_policy<float, W>::reduce(v.x + v.y + v.z + v.w); }
};

__global__ void rowsum_policy(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* row = x + int64_t(blockIdx.x) * cols;
  float s;
  if (cols % 4 == 0) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t c = threadIdx.x; c < cols / 4; c += 32) {
      const float4 v = row4[c];
      acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    }
    s = row_policy<float4, 32>::reduce(acc);
  } else {
    float acc = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += 32) acc += row[c];
    s = row_policy<float, 32>::reduce(acc);
  }
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_policy<<<rows, 32, 0, stream>>>(x, y, cols);
}
