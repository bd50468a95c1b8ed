// layernorm: a warp per row; (sum, sum of squares) in a struct moved whole by cooperative groups'
// thread_block_tile<32>::shfl_xor (which takes any trivially copyable type), merged by an operator+.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

struct Moments {
  float s;
  float q;
  __device__ Moments operator+(const Moments& o) const { return {s + o.s, q + o.q}; }
};

__global__ void layernorm_tile_struct(const float* __restrict__ x, const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ y, int rows, int cols, float eps) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * (blockDim.x / 32) + tile.meta_group_rank();
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  // shift by the row's first element to keep the single-pass variance accurate
  const float shift = xr[0];
  Moments m{0.f, 0.f};
  for (int c = tile.thread_rank(); c < cols; c += 32) {
    const float d = xr[c] - shift;
    m = m + Moments{d, d * d};
  }
  for (int o = 16; o > 0; o >>= 1) m = m + tile.shfl_xor(m, o);
  const float mean_d = m.s / cols;
  const float var = fmaxf(m.q / cols - mean_d * mean_d, 0.f);
  const float mean = shift + mean_d;
  const float rstd = rsqrtf(var + eps);
  float* yr = y + (size_t)row * cols;
  for (int c = tile.thread_rank(); c < cols; c += 32) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_tile_struct<<<(unsigned)((rows + 3) / 4), 128, 0, stream>>>(x, gamma, beta, y, (int)rows, (int)cols, eps);
}
