// Device reference (ksearch runs it for the workloads at or above [reference.cuda].above_flops, after
// checking it against reference.cpp): one block per row, the sum of exponentials and the quotient in
// double, the result rounded to fp32 once.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 256;

// Every thread gets the block's total; `scratch` holds kThreads values.
__device__ double block_sum(double v, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  const double total = scratch[0];
  __syncthreads();
  return total;
}

__device__ double block_max(double v, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) scratch[threadIdx.x] = fmax(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  const double m = scratch[0];
  __syncthreads();
  return m;
}

__global__ void softmax_reference_kernel(const float* x, float* y, int64_t cols) {
  __shared__ double scratch[kThreads];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  double m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmax(m, double(row[c]));
  m = block_max(m, scratch);
  double sum = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) sum += exp(double(row[c]) - m);
  sum = block_sum(sum, scratch);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = float(exp(double(row[c]) - m) / sum);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_reference_kernel<<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
}
