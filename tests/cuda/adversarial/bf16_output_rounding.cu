// expect: wrong_answer: computes in fp32 but rounds every output to bf16 (8 bits of mantissa, a relative error up to 2^-9 = 2e-3) before storing it as fp32, as a kernel writing half the bytes would: the task's fp32 tolerance (rtol 1e-3) refuses the downcast.
// expect-without-rules: wrong_answer
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void softmax_rows_bf16_out(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = __bfloat162float(__float2bfloat16_rn(expf(x[r * cols + c] - m) / s));
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_bf16_out<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}
