// A functor object as the launcher: the entry makes a local `RowsumLaunch launch{rows, cols, threads}` and calls it
// (`launch(x, y, stream)`, an operator call whose first argument is the object); its operator() picks the kernel by a
// field and sizes the grid by the others.
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

struct RowsumLaunch {
  int64_t rows, cols;
  int threads;
  void operator()(const float* x, float* y, cudaStream_t stream) const {
    if (threads >= 256)
      rowsum_block<256><<<unsigned(rows), 256, 0, stream>>>(x, y, cols);
    else
      rowsum_block<64><<<unsigned(rows), 64, 0, stream>>>(x, y, cols);
  }
};

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const RowsumLaunch launch{rows, cols, cols > 512 ? 256 : 64};
  launch(x, y, stream);
}
