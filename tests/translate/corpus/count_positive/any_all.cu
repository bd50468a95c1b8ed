// __any_sync / __all_sync short-cuts around a __popc(__ballot_sync) count; __activemask.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_any_all(const float* x, int* y, int cols) {
  int total = 0;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + threadIdx.x;
    const bool p = c < cols && x[(int64_t)blockIdx.x * cols + c] > 0.0f;
    if (__all_sync(0xffffffff, p)) total += 32;
    else if (__any_sync(0xffffffff, p)) total += __popc(__ballot_sync(__activemask(), p));
  }
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_any_all<<<rows, 32, 0, stream>>>(x, y, cols);
}
