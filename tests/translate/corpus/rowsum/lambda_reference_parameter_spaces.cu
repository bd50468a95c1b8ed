// Lambdas with reference parameters: one bound to __shared__ slots at its calls (its parameter becomes a threadgroup
// reference), one bound to registers; a lambda in a __device__ function capturing that function's locals and a
// built-in variable (threadIdx, passed to the struct as a member).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float strided_sum(const float* row, int cols) {
  float s = 0.f;
  auto column = [](int k) { return (int)(threadIdx.x + k * blockDim.x); };
  auto add = [&](int c) { s += row[c]; };
  for (int k = 0; column(k) < cols; ++k) add(column(k));
  return s;
}

__global__ void rowsum_slots(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float slots[4];
  const float* row = x + (size_t)blockIdx.x * cols;
  auto add_into = [](float& dst, float v) { dst += v; };
  float s = strided_sum(row, cols);
  for (int offset = 16; offset > 0; offset >>= 1) add_into(s, __shfl_down_sync(0xffffffffu, s, offset));
  auto accumulate_slot = [](float& slot, float v) { slot += v; };
  if ((threadIdx.x & 31) == 0) slots[threadIdx.x >> 5] = 0.f;
  if ((threadIdx.x & 31) == 0) accumulate_slot(slots[threadIdx.x >> 5], s);
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) accumulate_slot(slots[0], slots[w]);
    y[blockIdx.x] = slots[0];
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_slots<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
