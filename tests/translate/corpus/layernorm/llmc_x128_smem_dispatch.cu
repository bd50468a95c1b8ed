// llm.c layernorm_forward_kernel6 style: x128 packed loads (Packed128<float> with load128 / load128cs /
// store128), weight and bias staged into dynamic shared memory as x128, one warp per row
// (blockDim.y warps per block, cg::thread_block_tile<32>), the row cached in shared memory; a scalar
// fallback kernel when the row length is not a multiple of x128::size, chosen by the entry.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

namespace cg = cooperative_groups;

#define WARP_SIZE 32

template <class ElementType>
struct alignas(16) Packed128 {
  Packed128() = default;
  __device__ explicit Packed128(int4 bits) {
    static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
    memcpy(&payload, &bits, sizeof(bits));
  }
  __device__ static Packed128 constant(ElementType value) {
    Packed128 result;
    for (int k = 0; k < size; ++k) result.payload[k] = value;
    return result;
  }
  __device__ static Packed128 zeros() { return constant(0); }
  __device__ ElementType& operator[](int index) { return payload[index]; }
  __device__ const ElementType& operator[](int index) const { return payload[index]; }
  __device__ int4 get_bits() const {
    int4 bits;
    memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }
  static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
  ElementType payload[size];
};
typedef Packed128<float> x128;

template <class ElementType>
__device__ Packed128<ElementType> load128(const ElementType* address) {
  return Packed128<ElementType>{*reinterpret_cast<const int4*>(address)};
}
template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address) {
  return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
  *reinterpret_cast<int4*>(target) = value.get_bits();
}

__global__ void layernorm_forward_kernel6(float* __restrict__ out, const float* __restrict__ inp,
                                          const float* __restrict__ weight, const float* __restrict__ bias, int N,
                                          int C, float eps) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  // the first 2 * C floats hold weight and bias, then one row of C floats per warp
  extern __shared__ char params[];
  x128* s_weight = reinterpret_cast<x128*>(params);
  x128* s_bias = reinterpret_cast<x128*>(params) + (C / x128::size);
  x128* s_in = reinterpret_cast<x128*>(params) + ((2 + threadIdx.y) * C / x128::size);

  int sidx = (threadIdx.x + WARP_SIZE * threadIdx.y) * x128::size;
  for (int i = sidx; i < C; i += blockDim.y * WARP_SIZE * x128::size) {
    s_weight[i / x128::size] = load128(weight + i);
    s_bias[i / x128::size] = load128(bias + i);
  }
  __syncthreads();

  int idx = blockIdx.x * blockDim.y + threadIdx.y;
  if (idx >= N) return;  // guard

  inp += (int64_t)idx * C;
  float sum = 0.0f;
  for (int c = threadIdx.x * x128::size; c < C; c += WARP_SIZE * x128::size) {
    const x128 in_data = load128cs(inp + c);
    for (int k = 0; k < x128::size; ++k) sum += in_data[k];
    s_in[c / x128::size] = in_data;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  const float m = sum / C;

  float v = 0.f;
  for (int c = threadIdx.x * x128::size; c < C; c += WARP_SIZE * x128::size) {
    const x128 in_data = s_in[c / x128::size];
    for (int k = 0; k < x128::size; ++k) v += (in_data[k] - m) * (in_data[k] - m);
  }
  v = cg::reduce(warp, v, cg::plus<float>{}) / C;
  const float s = rsqrtf(v + eps);

  for (int c = threadIdx.x * x128::size; c < C; c += WARP_SIZE * x128::size) {
    const x128 in_data = s_in[c / x128::size];
    const x128 w = s_weight[c / x128::size];
    const x128 b = s_bias[c / x128::size];
    x128 out_data;
    for (int k = 0; k < x128::size; ++k) {
      const float n = s * (in_data[k] - m);
      out_data[k] = n * w[k] + b[k];
    }
    store128(out + (int64_t)idx * C + c, out_data);
  }
}

// scalar fallback: one warp per row, two passes over global memory
__global__ void layernorm_forward_scalar(float* __restrict__ out, const float* __restrict__ inp,
                                         const float* __restrict__ weight, const float* __restrict__ bias, int N,
                                         int C, float eps) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + (int64_t)idx * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  const float m = cg::reduce(warp, sum, cg::plus<float>{}) / C;
  float sq = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float d = x[i] - m;
    sq += d * d;
  }
  const float s = rsqrtf(cg::reduce(warp, sq, cg::plus<float>{}) / C + eps);
  float* o = out + (int64_t)idx * C;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) o[i] = s * (x[i] - m) * weight[i] + bias[i];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const int block_size = 128;
  const int warps = block_size / WARP_SIZE;
  const int N = (int)rows, C = (int)cols;
  const int grid_size = (N + warps - 1) / warps;
  if (C % x128::size == 0) {
    const size_t smem = (2 + warps) * C * sizeof(float);
    layernorm_forward_kernel6<<<grid_size, dim3(WARP_SIZE, warps), smem, stream>>>(y, x, gamma, beta, N, C, eps);
  } else {
    layernorm_forward_scalar<<<grid_size, block_size, 0, stream>>>(y, x, gamma, beta, N, C, eps);
  }
}
