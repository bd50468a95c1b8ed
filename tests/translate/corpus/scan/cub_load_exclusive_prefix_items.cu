// CUB's documented tile loop: BlockLoad of 4 items per thread, BlockScan::ExclusiveScan(items, sums,
// cuda::std::plus<float>(), prefix_op) with a running-total callback over the tiles, then each item's own
// input added back (an inclusive sum), BlockStore with the valid count; the three TempStorages in a union.
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <stdint.h>

struct RunningPrefix {
  float total;
  __device__ float operator()(float tile_total) {
    const float before = total;
    total += tile_total;
    return before;
  }
};

template <int THREADS, int ITEMS>
__global__ void scan_tiles(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<float, THREADS>;
  using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  constexpr int kTile = THREADS * ITEMS;
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  RunningPrefix prefix{0.f};
  for (int tile = 0; tile < cols; tile += kTile) {
    const int valid = min(kTile, cols - tile);
    float items[ITEMS], sums[ITEMS];
    Load(temp.load).Load(in + tile, items, valid, 0.f);
    __syncthreads();
    Scan(temp.scan).ExclusiveScan(items, sums, cuda::std::plus<float>(), prefix);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) sums[i] += items[i];
    Store(temp.store).Store(out + tile, sums, valid);
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_tiles<64, 4><<<(unsigned)rows, 64, 0, stream>>>(x, y, (int)cols);
}
