// Rows strided over the grid (for row = blockIdx.x; row < rows; row += gridDim.x), a device lambda
// counting a warp's positives by __ballot_sync / __popc, warp totals added in shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_positive_rows(const float* __restrict__ x, int* __restrict__ y, int rows, int cols) {
  __shared__ int total;
  const auto warp_count = [](bool pred) { return __popc(__ballot_sync(0xffffffffu, pred)); };
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    int mine = 0;
    for (int base = 0; base < cols; base += blockDim.x) {
      const int c = base + threadIdx.x;
      mine += warp_count(c < cols && x[(size_t)row * cols + c] > 0.f);
    }
    if ((threadIdx.x & 31) == 0) atomicAdd(&total, mine);
    __syncthreads();
    if (threadIdx.x == 0) y[row] = total;
    __syncthreads();
  }
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int grid = rows < 12 ? (int)rows : 12;
  count_positive_rows<<<grid, 96, 0, stream>>>(x, y, (int)rows, (int)cols);
}
