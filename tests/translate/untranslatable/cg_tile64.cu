// Untranslatable: a 64-thread tile of cooperative groups (line 8) spans two SIMD groups; tiles of a power of
// two up to 32 threads are translated.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;
__global__ void rowsum_tile64(const float* x, float* y, int cols) {
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
  float s = 0.f;
  for (int c = tile.thread_rank(); c < cols; c += 64) s += x[(int64_t)blockIdx.x * cols + c];
  for (int o = 32; o > 0; o /= 2) s += tile.shfl_xor(s, o);
  if (tile.thread_rank() == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tile64<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
