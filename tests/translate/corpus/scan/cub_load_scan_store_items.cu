// The CUB pipeline of a tile of items per thread: BlockLoad (BLOCK_LOAD_WARP_TRANSPOSE) with valid_items and an
// out-of-bounds default, BlockScan's array form InclusiveSum(items, items, aggregate) in place, BlockStore
// (BLOCK_STORE_VECTORIZE) with valid_items; their TempStorage in one __shared__ union. 4 items x 64 threads
// (the warp-transposing algorithms need whole warps).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void scan_items(const float* __restrict__ x, float* __restrict__ y, int cols) {
  typedef cub::BlockLoad<float, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_LOAD_WARP_TRANSPOSE> BlockLoadT;
  typedef cub::BlockStore<float, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_STORE_VECTORIZE> BlockStoreT;
  typedef cub::BlockScan<float, BLOCK_THREADS> BlockScanT;
  __shared__ union {
    typename BlockLoadT::TempStorage load;
    typename BlockStoreT::TempStorage store;
    typename BlockScanT::TempStorage scan;
  } temp_storage;
  constexpr int kTile = BLOCK_THREADS * ITEMS_PER_THREAD;
  const int64_t row = (int64_t)blockIdx.x * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += kTile) {
    const int valid = min(kTile, cols - base);
    float items[ITEMS_PER_THREAD];
    BlockLoadT(temp_storage.load).Load(x + row + base, items, valid, 0.f);
    __syncthreads();
    float aggregate;
    BlockScanT(temp_storage.scan).InclusiveSum(items, items, aggregate);
    __syncthreads();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] += carry;
    BlockStoreT(temp_storage.store).Store(y + row + base, items, valid);
    carry += aggregate;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_items<64, 4><<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
