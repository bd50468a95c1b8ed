// The other BlockScan forms on one row per block of 64 threads (2 warps): ExclusiveSum with and without the block
// aggregate, ExclusiveScan with an initial value and cub::Sum(), InclusiveScan with a user functor, and ExclusiveScan
// with an operator and no initial value (thread 0's output undefined, as CUB says: not used). Each gives the
// inclusive sum of the tile; the results must agree.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};

__global__ void scan_forms(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using Scan = cub::BlockScan<float, 64, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage temp;
  const int64_t row = (int64_t)blockIdx.x * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += 64) {
    const int c = base + threadIdx.x;
    const float v = c < cols ? x[row + c] : 0.f;
    float e1, e2, e3, e4, i1, total;
    Scan(temp).ExclusiveSum(v, e1, total);
    __syncthreads();
    Scan(temp).ExclusiveSum(v, e2);
    __syncthreads();
    Scan(temp).ExclusiveScan(v, e3, carry, cub::Sum());
    __syncthreads();
    Scan(temp).InclusiveScan(v, i1, Add());
    __syncthreads();
    Scan(temp).ExclusiveScan(v, e4, Add());
    __syncthreads();
    if (threadIdx.x == 0) e4 = 0.f;
    const float inclusive = (e1 + e2 + (e3 - carry) + e4 + (i1 - v)) * 0.2f + v;
    if (c < cols) y[row + c] = carry + inclusive;
    carry += total;
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_forms<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
