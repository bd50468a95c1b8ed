// CUB's tile-by-tile scan with a running prefix: BlockScan::InclusiveSum(v, v, prefix_op) where the
// callback functor returns the carried total and adds the tile's aggregate (CUB's documented idiom).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

struct BlockPrefixCallbackOp {
  float running_total;
  __device__ BlockPrefixCallbackOp(float running_total) : running_total(running_total) {}
  __device__ float operator()(float block_aggregate) {
    const float old_prefix = running_total;
    running_total += block_aggregate;
    return old_prefix;
  }
};

template <int BLOCK_THREADS>
__global__ void scan_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using BlockScan = cub::BlockScan<float, BLOCK_THREADS>;
  __shared__ typename BlockScan::TempStorage temp_storage;
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  BlockPrefixCallbackOp prefix_op(0.0f);
  for (int tile = 0; tile < cols; tile += BLOCK_THREADS) {
    const int c = tile + threadIdx.x;
    float v = c < cols ? in[c] : 0.0f;
    BlockScan(temp_storage).InclusiveSum(v, v, prefix_op);
    __syncthreads();
    if (c < cols) out[c] = v;
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_rows<128><<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
}
