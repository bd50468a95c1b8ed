// ATen-style acc_type trait (primary template + specializations), a 16-thread tile per row from
// cooperative groups, __frcp_rn, __expf, block.dim_threads() (CUDA 12 name of group_dim()). The trait has float and
// double specializations, which narrowing makes one (the double one is left out). (Its namespace is not `at`: the cuda
// rules refuse PyTorch's names, and each corpus kernel also runs as a cuda candidate.)
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

namespace aten_like {
template <typename T, bool is_cuda> struct AccumulateType {};
template <> struct AccumulateType<float, true> { using type = float; };
template <> struct AccumulateType<__half, true> { using type = float; };
template <> struct AccumulateType<double, true> { using type = double; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;
}  // namespace aten_like

constexpr int kTile = 16;
constexpr int kRowsPerBlock = 4;

template <typename scalar_t>
__global__ void softmax_tile16(const scalar_t* __restrict__ in, scalar_t* __restrict__ out, int rows, int cols) {
  using accscalar_t = aten_like::acc_type<scalar_t, true>;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kTile> tile = cg::tiled_partition<kTile>(block);
  const int rows_per_block = block.dim_threads().x / kTile;
  const int row = blockIdx.x * rows_per_block + tile.meta_group_rank();
  if (row >= rows) return;
  const scalar_t* src = in + (int64_t)row * cols;
  scalar_t* dst = out + (int64_t)row * cols;
  accscalar_t m = -INFINITY;
  for (int c = tile.thread_rank(); c < cols; c += kTile) m = fmaxf(m, (accscalar_t)src[c]);
#pragma unroll
  for (int o = kTile / 2; o > 0; o /= 2) m = fmaxf(m, tile.shfl_xor(m, o));
  accscalar_t s = 0;
  for (int c = tile.thread_rank(); c < cols; c += kTile) s += __expf((accscalar_t)src[c] - m);
#pragma unroll
  for (int o = kTile / 2; o > 0; o /= 2) s += tile.shfl_xor(s, o);
  const accscalar_t inv = __frcp_rn(s);
  for (int c = tile.thread_rank(); c < cols; c += kTile) dst[c] = (scalar_t)(__expf((accscalar_t)src[c] - m) * inv);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const unsigned blocks = (unsigned)((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  softmax_tile16<float><<<blocks, kTile * kRowsPerBlock, 0, stream>>>(x, y, (int)rows, (int)cols);
}
