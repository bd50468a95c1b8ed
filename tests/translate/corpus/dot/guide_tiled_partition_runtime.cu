// Cooperative groups' run-time partition, as the CUDA guide writes it: `cg::thread_group tile32 =
// cg::tiled_partition(block, 32)` (a thread_group, its size an argument), a warp reduction through the tile's
// shared-memory slice and tile32.sync(), the warps' sums added by thread 0 of each warp with atomicAdd after a
// cudaMemsetAsync of the output.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_group tile, float* slice, float val) {
  const unsigned lane = tile.thread_rank();
  for (unsigned i = tile.size() / 2; i > 0; i /= 2) {
    slice[lane] = val;
    tile.sync();
    if (lane < i) val += slice[lane + i];
    tile.sync();
  }
  return val;
}

__global__ void dot_tiles(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int64_t n) {
  __shared__ float scratch[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile32 = cg::tiled_partition(block, 32);
  float partial = 0.f;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    partial += x[i] * w[i];
  float* slice = scratch + 32 * (block.thread_rank() / 32);
  const float warp_total = tile_sum(tile32, slice, partial);
  if (tile32.thread_rank() == 0) atomicAdd(out, warp_total);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  const int64_t blocks = (n + 255) / 256 < 64 ? (n + 255) / 256 : 64;
  dot_tiles<<<(unsigned)(blocks > 0 ? blocks : 1), 256, 0, stream>>>(x, w, y, n);
}
