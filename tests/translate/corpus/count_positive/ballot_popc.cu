// __ballot_sync and __popc: one warp per row counts the lanes whose value is positive.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_ballot(const float* x, int* y, int cols) {
  const int lane = threadIdx.x;
  int total = 0;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + lane;
    const bool positive = c < cols && x[(int64_t)blockIdx.x * cols + c] > 0.0f;
    total += __popc(__ballot_sync(0xffffffff, positive));
  }
  if (lane == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_ballot<<<rows, 32, 0, stream>>>(x, y, cols);
}
