// A shared-memory-free 32 x 32 transpose: each warp owns a tile, lane s holds column s of the tile in
// a register array v[32], and the tile is transposed by 32 rotating __shfl_sync steps (lane l takes
// from lane (l + k) & 31 the element v[(lane - k) & 31] that lane offers, landing in out[(l + k) & 31]),
// as register-transpose kernels in FasterTransformer-like code do; then coalesced stores of the rows of
// the transposed tile. Several warps per block in threadIdx.y; guards for partial tiles.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kTile = 32;
constexpr int kWarpsPerBlock = 4;

__global__ void __launch_bounds__(kTile * kWarpsPerBlock)
    transpose_shfl(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int lane = threadIdx.x;  // blockDim.x == 32
  const int tiles_x = (cols + kTile - 1) / kTile;
  const int tile = blockIdx.x * kWarpsPerBlock + threadIdx.y;
  const int tiles_y = (rows + kTile - 1) / kTile;
  if (tile >= tiles_x * tiles_y) return;  // the whole warp leaves together
  const int r0 = (tile / tiles_x) * kTile;
  const int c0 = (tile % tiles_x) * kTile;

  float v[kTile];
#pragma unroll
  for (int r = 0; r < kTile; ++r) {
    const int gr = r0 + r, gc = c0 + lane;
    v[r] = (gr < rows && gc < cols) ? __ldg(x + (int64_t)gr * cols + gc) : 0.0f;
  }

  float out[kTile];
#pragma unroll
  for (int k = 0; k < kTile; ++k) {
    const float offered = v[(lane - k) & (kTile - 1)];
    out[(lane + k) & (kTile - 1)] = __shfl_sync(0xffffffffu, offered, (lane + k) & (kTile - 1));
  }

  // lane l now holds x[r0 + l][c0 + j] in out[j]: row c0 + j of y, column r0 + l
#pragma unroll
  for (int j = 0; j < kTile; ++j) {
    const int yr = c0 + j, yc = r0 + lane;
    if (yr < cols && yc < rows) y[(int64_t)yr * rows + yc] = out[j];
  }
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
  const dim3 block(kTile, kWarpsPerBlock);
  const dim3 grid((unsigned)((tiles + kWarpsPerBlock - 1) / kWarpsPerBlock));
  transpose_shfl<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
