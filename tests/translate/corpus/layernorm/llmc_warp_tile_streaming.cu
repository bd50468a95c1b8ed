// llm.c's layernorm_forward_kernel3: a warp per row (meta_group_size/meta_group_rank of a 32-thread tile),
// cg::reduce with cg::plus, streaming loads and stores (__ldcs, __stcs).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
namespace cg = cooperative_groups;

__global__ void layernorm_forward_kernel3(float* __restrict__ out, const float* __restrict__ inp,
                                          const float* __restrict__ weight, const float* __restrict__ bias,
                                          int N, int C, float eps) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + (size_t)idx * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  float m = sum / C;
  sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    float diff = x[i] - m;
    sum += diff * diff;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  float s = rsqrtf(sum / C + eps);
  float* o = out + (size_t)idx * C;
  for (int c = warp.thread_rank(); c < C; c += warp.size()) {
    float n = s * (__ldcs(x + c) - m);
    __stcs(o + c, n * weight[c] + bias[c]);
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const int block_size = 256;
  const int grid_size = (int)((rows * 32 + block_size - 1) / block_size);
  layernorm_forward_kernel3<<<grid_size, block_size, 0, stream>>>(y, x, gamma, beta, (int)rows, (int)cols, eps);
}
