// One item per thread: BlockScan::ExclusiveSum(v, e, prefix_op) carried over the row's tiles by a callback
// class with a constructor, the inclusive value as e + v; BLOCK_SCAN_WARP_SCANS over 96 threads (three
// warps), of which the first calls the callback, as in CUB.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

class TilePrefix {
 public:
  __device__ explicit TilePrefix(float start) : carried_(start) {}
  __device__ float operator()(float aggregate) {
    const float prefix = carried_;
    carried_ += aggregate;
    return prefix;
  }

 private:
  float carried_;
};

constexpr int kThreads = 96;

__global__ void scan_exclusive_prefix(const float* __restrict__ x, float* __restrict__ y, int cols) {
  typedef cub::BlockScan<float, kThreads, cub::BLOCK_SCAN_WARP_SCANS> BlockScanT;
  __shared__ typename BlockScanT::TempStorage storage;
  TilePrefix prefix(0.f);
  for (int base = 0; base < cols; base += kThreads) {
    const int c = base + threadIdx.x;
    const float v = c < cols ? x[(size_t)blockIdx.x * cols + c] : 0.f;
    float e;
    BlockScanT(storage).ExclusiveSum(v, e, prefix);
    if (c < cols) y[(size_t)blockIdx.x * cols + c] = e + v;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_exclusive_prefix<<<(unsigned)rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
