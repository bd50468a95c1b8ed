// cub::WarpScan: a warp per row (two rows per block of 64 threads, a TempStorage per warp), the row in tiles of 32
// with the tile's aggregate carried: InclusiveSum(v, inclusive, aggregate) and ExclusiveScan(v, exclusive, carry,
// cub::Sum()) must agree; for rows of even length, logical warps of 16 lanes (WarpScan<float, 16>, ExclusiveSum with the
// aggregate), four rows per block.
#include <cub/warp/warp_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void scan_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  typedef cub::WarpScan<float> WarpScan;
  __shared__ typename WarpScan::TempStorage temp[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r = blockIdx.x * 2 + warp;
  if (r >= rows) return;  // a whole warp leaves
  const int64_t row = (int64_t)r * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + lane;
    const float v = c < cols ? x[row + c] : 0.f;
    float inclusive, exclusive, aggregate;
    WarpScan(temp[warp]).InclusiveSum(v, inclusive, aggregate);
    WarpScan(temp[warp]).ExclusiveScan(v, exclusive, carry, cub::Sum());
    if (c < cols) y[row + c] = 0.5f * ((carry + inclusive) + (exclusive + v));
    carry += aggregate;
  }
}

__global__ void scan_half_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  typedef cub::WarpScan<float, 16> HalfWarpScan;
  __shared__ typename HalfWarpScan::TempStorage temp[4];
  const int group = threadIdx.x / 16, lane = threadIdx.x % 16;
  const int r = blockIdx.x * 4 + group;
  const int64_t row = (int64_t)r * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += 16) {  // every half-warp runs as many tiles: the shuffles need all lanes
    const int c = base + lane;
    const float v = r < rows && c < cols ? x[row + c] : 0.f;
    float exclusive, aggregate;
    HalfWarpScan(temp[group]).ExclusiveSum(v, exclusive, aggregate);
    if (r < rows && c < cols) y[row + c] = carry + exclusive + v;
    carry += aggregate;
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols % 2 == 0)
    scan_half_warp_rows<<<(rows + 3) / 4, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
  else
    scan_warp_rows<<<(rows + 1) / 2, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
}
