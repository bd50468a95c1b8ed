// Untranslatable: a launcher template that calls itself with other template arguments (line 28) until an explicit
// specialization ends it, choosing the block size by compile-time recursion; the port follows no recursion (it once
// missed the dependent call and translated the first launch alone).
#include <cuda_runtime.h>
#include <cstdint>

template <int BLOCK>
__global__ void rowsum_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[BLOCK];
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += BLOCK) s += x[blockIdx.x * cols + i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

// The smallest block of 64, 128, ... 512 threads that covers a row, by compile-time recursion.
template <int BLOCK>
void dispatch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols <= BLOCK) {
    rowsum_block<BLOCK><<<unsigned(rows), BLOCK, 0, stream>>>(x, y, cols);
    return;
  }
  dispatch<BLOCK * 2>(x, y, rows, cols, stream);
}

template <>
void dispatch<512>(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_block<512><<<unsigned(rows), 512, 0, stream>>>(x, y, cols);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dispatch<64>(x, y, rows, cols, stream);
}
