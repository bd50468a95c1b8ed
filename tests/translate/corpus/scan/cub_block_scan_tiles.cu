// cub::BlockScan over a row in tiles of 96 threads (3 warps): InclusiveSum with the block aggregate carried into
// the next tile, as CUB's multi-tile examples do, with __syncthreads before the storage is reused.
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_THREADS>
__global__ void scan_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  typedef cub::BlockScan<float, BLOCK_THREADS> BlockScan;
  __shared__ typename BlockScan::TempStorage temp_storage;
  const int64_t row = (int64_t)blockIdx.x * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += BLOCK_THREADS) {
    const int c = base + threadIdx.x;
    const float v = c < cols ? x[row + c] : 0.f;
    float inclusive, tile_total;
    BlockScan(temp_storage).InclusiveSum(v, inclusive, tile_total);
    if (c < cols) y[row + c] = carry + inclusive;
    carry += tile_total;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_rows<96><<<rows, 96, 0, stream>>>(x, y, (int)cols);
}
