// Device reference (ksearch runs it for the workloads at or above [reference.cuda].above_flops, after
// checking it against reference.cpp): one block per row, the mean square and the scaling in double, the
// result rounded to fp32 once.
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

__global__ void rmsnorm_reference_kernel(const float* x, const float* weight, float* y, int64_t cols, float eps) {
  __shared__ double scratch[kThreads];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  double sum_sq = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) sum_sq += double(row[c]) * double(row[c]);
  sum_sq = block_sum(sum_sq, scratch);
  const double inv = 1.0 / sqrt(sum_sq / double(cols) + double(eps));
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = float(double(row[c]) * inv * double(weight[c]));
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  if (rows > 0) rmsnorm_reference_kernel<<<unsigned(rows), kThreads, 0, stream>>>(x, weight, y, cols, eps);
}
