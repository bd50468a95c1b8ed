// A warp-per-row layernorm whose statistics are one Welford struct reduced by cg::reduce with a device
// lambda as the operator (cg::reduce over a trivially-copyable struct, Chan's parallel combine), the tile
// from cg::tiled_partition<32>, rows per block from meta_group_size(), std::numeric_limits in device code.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <limits>

namespace cg = cooperative_groups;

struct Welford {
  float mean;
  float m2;
  float n;
};

__global__ void layernorm_cg_welford(const float* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                                     float eps) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= rows) return;
  const float* xr = x + (int64_t)row * cols;

  Welford w{0.f, 0.f, 0.f};
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
    const float v = xr[c];
    w.n += 1.f;
    const float d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
  }
  const auto combine = [] __device__(const Welford& a, const Welford& b) -> Welford {
    const float n = a.n + b.n;
    if (n == 0.f) return Welford{0.f, 0.f, 0.f};
    const float d = b.mean - a.mean;
    const float nb = b.n / n;
    return Welford{a.mean + d * nb, a.m2 + b.m2 + d * d * a.n * nb, n};
  };
  const Welford t = cg::reduce(warp, w, combine);
  const float var = fmaxf(t.m2 / t.n, 0.f);
  const float rstd = rsqrtf(var + eps);
  const float lowest = std::numeric_limits<float>::lowest();
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
    const float o = (xr[c] - t.mean) * rstd * gamma[c] + beta[c];
    y[(int64_t)row * cols + c] = fmaxf(o, lowest);
  }
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  constexpr int kWarps = 4;
  layernorm_cg_welford<<<(unsigned)((rows + kWarps - 1) / kWarps), 32 * kWarps, 0, stream>>>(x, gamma, beta, y,
                                                                                          (int)rows, (int)cols, eps);
}
