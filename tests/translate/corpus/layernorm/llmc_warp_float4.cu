// llm.c's layernorm_forward_kernel3: a warp per row through cooperative groups, cg::reduce for the mean
// and the variance; rows of a multiple of 4 columns read as float4 (reinterpret_cast), others scalar.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

template <bool kVec4>
__global__ void layernorm_forward_kernel3(float* __restrict__ out, const float* __restrict__ inp,
                                          const float* __restrict__ weight, const float* __restrict__ bias, int N,
                                          int C, float eps) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + (size_t)idx * C;

  float sum = 0.0f;
  if constexpr (kVec4) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (int i = warp.thread_rank(); i < C / 4; i += warp.size()) {
      const float4 v = x4[i];
      sum += v.x + v.y + v.z + v.w;
    }
  } else {
    for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  const float m = sum / C;

  sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float diff = x[i] - m;
    sum += diff * diff;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  const float s = rsqrtf(sum / C + eps);

  float* o = out + (size_t)idx * C;
  for (int c = warp.thread_rank(); c < C; c += warp.size()) {
    const float n = s * (__ldcs(x + c) - m);
    __stcs(o + c, n * weight[c] + bias[c]);
  }
}

static inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const int block_size = 128;
  const int N = (int)rows, C = (int)cols;
  const int grid_size = ceil_div(N * 32, block_size);
  if (C % 4 == 0)
    layernorm_forward_kernel3<true><<<grid_size, block_size, 0, stream>>>(y, x, gamma, beta, N, C, eps);
  else
    layernorm_forward_kernel3<false><<<grid_size, block_size, 0, stream>>>(y, x, gamma, beta, N, C, eps);
}
