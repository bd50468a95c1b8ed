// task: softmax
// A 32-thread cooperative_groups tile per row (tiled_partition<32>, cg::reduce with cg::greater and cg::plus), the
// row read through __ldg as float4 (reinterpret_cast) where it is 16-byte aligned and a whole number of float4s,
// element by element otherwise.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace cg = cooperative_groups;

constexpr int kTile = 32;
constexpr int kTilesPerBlock = 4;

template <bool kVectorized>
__device__ void softmax_row(const cg::thread_block_tile<kTile>& tile, const float* __restrict__ in, float* __restrict__ out,
                            int64_t cols) {
  float m = -INFINITY;
  if constexpr (kVectorized) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    const int64_t vectors = cols / 4;
    for (int64_t v = tile.thread_rank(); v < vectors; v += kTile) {
      const float4 a = __ldg(in4 + v);
      m = fmaxf(m, fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)));
    }
    m = cg::reduce(tile, m, cg::greater<float>());
    float s = 0.f;
    for (int64_t v = tile.thread_rank(); v < vectors; v += kTile) {
      const float4 a = __ldg(in4 + v);
      s += __expf(a.x - m) + __expf(a.y - m) + __expf(a.z - m) + __expf(a.w - m);
    }
    const float inv = 1.f / cg::reduce(tile, s, cg::plus<float>());
    for (int64_t v = tile.thread_rank(); v < vectors; v += kTile) {
      const float4 a = __ldg(in4 + v);
      out4[v] = make_float4(__expf(a.x - m) * inv, __expf(a.y - m) * inv, __expf(a.z - m) * inv, __expf(a.w - m) * inv);
    }
  } else {
    for (int64_t c = tile.thread_rank(); c < cols; c += kTile) m = fmaxf(m, __ldg(in + c));
    m = cg::reduce(tile, m, cg::greater<float>());
    float s = 0.f;
    for (int64_t c = tile.thread_rank(); c < cols; c += kTile) s += __expf(__ldg(in + c) - m);
    const float inv = 1.f / cg::reduce(tile, s, cg::plus<float>());
    for (int64_t c = tile.thread_rank(); c < cols; c += kTile) out[c] = __expf(__ldg(in + c) - m) * inv;
  }
}

__global__ void softmax_tiles(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols, bool vectorized) {
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<kTile> tile = cg::tiled_partition<kTile>(block);
  const int64_t r = int64_t(blockIdx.x) * kTilesPerBlock + tile.meta_group_rank();
  if (r >= rows) return;
  if (vectorized) softmax_row<true>(tile, x + r * cols, y + r * cols, cols);
  else softmax_row<false>(tile, x + r * cols, y + r * cols, cols);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const bool vectorized = cols % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  softmax_tiles<<<unsigned((rows + kTilesPerBlock - 1) / kTilesPerBlock), kTile * kTilesPerBlock, 0, stream>>>(x, y, rows, cols, vectorized);
}
