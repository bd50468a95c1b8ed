// A plan object's methods as launchers: the entry default-initializes a struct (default member initializers), assigns
// its fields, and calls its const method, which picks a member function template by a field; the launch reads fields
// named alone, through `this->` and through another const method.
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

struct RowsumPlan {
  int64_t rows = 0, cols = 0;
  int threads = 64;
  unsigned blocks() const { return unsigned(this->rows); }
  template <int BLOCK>
  void launch_with(const float* x, float* y, cudaStream_t stream) const {
    rowsum_block<BLOCK><<<blocks(), BLOCK, 0, stream>>>(x, y, this->cols);
  }
  void launch(const float* x, float* y, cudaStream_t stream) const {
    if (threads == 256) launch_with<256>(x, y, stream);
    else launch_with<64>(x, y, stream);
  }
};

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowsumPlan plan;
  plan.rows = rows;
  plan.cols = cols;
  if (cols > 256) plan.threads = 256;
  plan.launch(x, y, stream);
}
