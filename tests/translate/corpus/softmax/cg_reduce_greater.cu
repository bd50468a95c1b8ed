// softmax: a warp per row through cooperative groups, cg::reduce with cg::greater for the max and
// cg::plus for the sum, std::numeric_limits for -inf, __launch_bounds__ from a template argument.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <limits>
#include <stdint.h>
namespace cg = cooperative_groups;

template <int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    softmax_cg_warp(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int64_t row = (int64_t)blockIdx.x * kWarpsPerBlock + warp.meta_group_rank();
  if (row >= rows) return;
  const float* __restrict__ in = x + row * cols;
  float* __restrict__ out = y + row * cols;
  float local_max = -std::numeric_limits<float>::infinity();
  for (int64_t c = warp.thread_rank(); c < cols; c += warp.size()) local_max = fmaxf(local_max, in[c]);
  const float row_max = cg::reduce(warp, local_max, cg::greater<float>());
  float local_sum = 0.f;
  for (int64_t c = warp.thread_rank(); c < cols; c += warp.size()) local_sum += expf(in[c] - row_max);
  const float row_sum = cg::reduce(warp, local_sum, cg::plus<float>());
  const float inv = 1.f / row_sum;
  for (int64_t c = warp.thread_rank(); c < cols; c += warp.size()) out[c] = expf(in[c] - row_max) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kWarps = 4;
  const unsigned blocks = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
  softmax_cg_warp<kWarps><<<blocks, kWarps * 32, 0, stream>>>(x, y, rows, cols);
}
