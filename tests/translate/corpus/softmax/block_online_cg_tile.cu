// Online softmax (running max and rescaled sum) per thread, merged within 16-thread tiles
// (cg::tiled_partition<16>, two rows per 32-thread block), __expf and fmaxf.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

__global__ void softmax_tiles(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int row = blockIdx.x * 2 + tile.meta_group_rank();
  if (row >= rows) return;
  const float* in = x + (int64_t)row * cols;
  float m = -3.0e38f, s = 0.f;
  for (int c = tile.thread_rank(); c < cols; c += tile.size()) {
    const float v = in[c], nm = fmaxf(m, v);
    s = s * __expf(m - nm) + __expf(v - nm);
    m = nm;
  }
  for (int o = 8; o > 0; o >>= 1) {
    const float om = tile.shfl_xor(m, o), os = tile.shfl_xor(s, o);
    const float nm = fmaxf(m, om);
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
  }
  const float inv = 1.f / s;
  for (int c = tile.thread_rank(); c < cols; c += tile.size()) y[(int64_t)row * cols + c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_tiles<<<(rows + 1) / 2, 32, 0, stream>>>(x, y, (int)rows, (int)cols);
}
