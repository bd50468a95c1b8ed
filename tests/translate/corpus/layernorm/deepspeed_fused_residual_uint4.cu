// DeepSpeed inference style fused bias + residual + layernorm (float variant of the __half2 kernel):
// mem_access::load_global<16> through void* into an alignas(16) local buffer, granularity constants in a namespace,
// reduce helpers over cg tiles, optional residual/bias pointers (nullptr from the launcher).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int hw_warp_size = 32;

namespace ln {
constexpr int granularity = 16;
}

namespace mem_access {
template <int AccessSize>
__device__ __forceinline__ void load_global(void* dst, const void* src, bool do_access) {
  static_assert(AccessSize == 16, "only 16 byte accesses");
  if (do_access) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else {
    uint4* d = reinterpret_cast<uint4*>(dst);
    d->x = 0; d->y = 0; d->z = 0; d->w = 0;
  }
}
template <int AccessSize>
__device__ __forceinline__ void store_global(void* dst, const void* src) {
  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
}
}  // namespace mem_access

namespace reduce {
template <int N>
__device__ __forceinline__ float warp_sum(cg::thread_block_tile<hw_warp_size>& warp, float v) {
#pragma unroll
  for (int i = N / 2; i > 0; i >>= 1) v += warp.shfl_xor(v, i);
  return v;
}
template <int threadsPerGroup>
__device__ float block_sum(cg::thread_block& tb, cg::thread_block_tile<hw_warp_size>& warp, float v) {
  __shared__ float partials[threadsPerGroup / hw_warp_size];
  v = warp_sum<hw_warp_size>(warp, v);
  if (warp.thread_rank() == 0) partials[warp.meta_group_rank()] = v;
  tb.sync();
  float total = 0.f;
#pragma unroll
  for (int w = 0; w < threadsPerGroup / hw_warp_size; ++w) total += partials[w];
  tb.sync();
  return total;
}
}  // namespace reduce

template <int unRoll, int threadsPerGroup>
__global__ void fused_residual_ln(float* output, const float* vals, const float* residual, const float* bias,
                                  const float* gamma, const float* beta, float epsilon, int elems_per_row) {
  constexpr int T_per_load = ln::granularity / sizeof(float);
  cg::thread_block tb = cg::this_thread_block();
  cg::thread_block_tile<hw_warp_size> warp = cg::tiled_partition<hw_warp_size>(tb);
  const int block_offset = tb.group_index().x * elems_per_row;
  const int thread_offset = tb.thread_index().x * T_per_load;
  const int base_offset = block_offset + thread_offset;
  constexpr int stride = threadsPerGroup * T_per_load;
  const float* input_base = vals + base_offset;
  alignas(16) float local_buffer[unRoll * T_per_load];
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < unRoll; i++) {
    float* iteration_buffer = local_buffer + i * T_per_load;
    const bool do_loads = thread_offset + i * stride < elems_per_row;
    mem_access::load_global<ln::granularity>(iteration_buffer, input_base + i * stride, do_loads);
    if (do_loads && residual != nullptr) {
      alignas(16) float res[T_per_load];
      mem_access::load_global<ln::granularity>(res, residual + base_offset + i * stride, true);
#pragma unroll
      for (int j = 0; j < T_per_load; j++) iteration_buffer[j] += res[j];
    }
    if (do_loads && bias != nullptr) {
#pragma unroll
      for (int j = 0; j < T_per_load; j++) iteration_buffer[j] += bias[thread_offset + i * stride + j];
    }
#pragma unroll
    for (int j = 0; j < T_per_load; j++) sum += iteration_buffer[j];
  }
  const float mean = reduce::block_sum<threadsPerGroup>(tb, warp, sum) / elems_per_row;
  float mean_diff = 0.f;
#pragma unroll
  for (int i = 0; i < unRoll; i++) {
    const bool valid = thread_offset + i * stride < elems_per_row;
#pragma unroll
    for (int j = 0; j < T_per_load; j++) {
      const float d = local_buffer[i * T_per_load + j] - mean;
      if (valid) mean_diff += d * d;
    }
  }
  const float variance = reduce::block_sum<threadsPerGroup>(tb, warp, mean_diff) / elems_per_row;
  const float denom = rsqrtf(variance + epsilon);
  float* block_output = output + block_offset;
#pragma unroll
  for (int i = 0; i < unRoll; i++) {
    const int pos = thread_offset + i * stride;
    if (pos < elems_per_row) {
      alignas(16) float g[T_per_load];
      alignas(16) float bt[T_per_load];
      mem_access::load_global<ln::granularity>(g, gamma + pos, true);
      mem_access::load_global<ln::granularity>(bt, beta + pos, true);
      float* iteration_buffer = local_buffer + i * T_per_load;
#pragma unroll
      for (int j = 0; j < T_per_load; j++) iteration_buffer[j] = (iteration_buffer[j] - mean) * denom * g[j] + bt[j];
      mem_access::store_global<ln::granularity>(block_output + pos, iteration_buffer);
    }
  }
}

// Scalar fallback for rows whose length is not a multiple of the granularity.
template <int threadsPerGroup>
__global__ void fused_residual_ln_scalar(float* output, const float* vals, const float* residual, const float* bias,
                                         const float* gamma, const float* beta, float epsilon, int elems_per_row) {
  cg::thread_block tb = cg::this_thread_block();
  cg::thread_block_tile<hw_warp_size> warp = cg::tiled_partition<hw_warp_size>(tb);
  const float* row = vals + blockIdx.x * elems_per_row;
  float sum = 0.f;
  for (int c = threadIdx.x; c < elems_per_row; c += threadsPerGroup) {
    float v = row[c];
    if (residual) v += residual[blockIdx.x * elems_per_row + c];
    if (bias) v += bias[c];
    sum += v;
  }
  const float mean = reduce::block_sum<threadsPerGroup>(tb, warp, sum) / elems_per_row;
  float sq = 0.f;
  for (int c = threadIdx.x; c < elems_per_row; c += threadsPerGroup) {
    float v = row[c];
    if (residual) v += residual[blockIdx.x * elems_per_row + c];
    if (bias) v += bias[c];
    sq += (v - mean) * (v - mean);
  }
  const float denom = rsqrtf(reduce::block_sum<threadsPerGroup>(tb, warp, sq) / elems_per_row + epsilon);
  for (int c = threadIdx.x; c < elems_per_row; c += threadsPerGroup) {
    float v = row[c];
    if (residual) v += residual[blockIdx.x * elems_per_row + c];
    if (bias) v += bias[c];
    output[blockIdx.x * elems_per_row + c] = (v - mean) * denom * gamma[c] + beta[c];
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  constexpr int threads = 256;
  if (cols % 4 == 0 && cols <= threads * 4 * 4) {
    fused_residual_ln<4, threads><<<rows, threads, 0, stream>>>(y, x, nullptr, nullptr, gamma, beta, eps, (int)cols);
  } else {
    fused_residual_ln_scalar<threads><<<rows, threads, 0, stream>>>(y, x, nullptr, nullptr, gamma, beta, eps, (int)cols);
  }
}
