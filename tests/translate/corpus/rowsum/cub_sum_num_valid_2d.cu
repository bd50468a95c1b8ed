// A 2-D block (32 x 4) given to cub::BlockReduce's BLOCK_DIM_Y, the raking algorithm named, and the partial-tile
// form Sum(v, num_valid): the row in tiles of 128 elements, one per thread, the last tile partial; thread 0
// accumulates the tiles' sums.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int BX, int BY>
__global__ void rowsum_tiles(const float* __restrict__ x, float* __restrict__ y, int cols) {
  typedef cub::BlockReduce<float, BX, cub::BLOCK_REDUCE_RAKING, BY> BlockReduceT;
  __shared__ typename BlockReduceT::TempStorage temp;
  const int tid = threadIdx.y * BX + threadIdx.x;
  const float* row = x + (int64_t)blockIdx.x * cols;
  float total = 0.f;
  for (int base = 0; base < cols; base += BX * BY) {
    const int valid = min(BX * BY, cols - base);
    const float v = tid < valid ? row[base + tid] : 0.f;
    const float tile = BlockReduceT(temp).Sum(v, valid);
    if (tid == 0) total += tile;
    __syncthreads();
  }
  if (tid == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(32, 4);
  rowsum_tiles<32, 4><<<rows, block, 0, stream>>>(x, y, (int)cols);
}
