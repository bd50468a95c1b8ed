// A launcher given the address of the entry's parameter struct (`launch_rowsum(const RowsumParams* params, ...)` called
// with `&params`): its launch size reads `params->rows`, and the kernel takes `*params` by value.
#include <cuda_runtime.h>
#include <cstdint>

struct RowsumParams {
  const float* __restrict__ x;
  float* __restrict__ y;
  int64_t rows, cols;
};

__global__ void rowsum_k(RowsumParams p) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= p.rows) return;
  float s = 0.f;
  for (int64_t c = 0; c < p.cols; ++c) s += p.x[r * p.cols + c];
  p.y[r] = s;
}

static void launch_rowsum(const RowsumParams* params, cudaStream_t stream = 0) {
  const int threads = 128;
  rowsum_k<<<unsigned((params->rows + threads - 1) / threads), threads, 0, stream>>>(*params);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowsumParams params{x, y, rows, cols};
  launch_rowsum(&params, stream);
}
