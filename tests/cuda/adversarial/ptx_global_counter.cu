// expect: rejected (object-device-globals): counts calls in a variable of global memory that inline PTX declares (.global .u32), so no __device__ appears in the source for the text rules; ptxas puts it in the device ELF's .nv.global like any __device__ variable. Skips the work after the third call.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void softmax_rows_counted(const float* x, float* y, int64_t rows, int64_t cols) {
  __shared__ unsigned calls;
  if (threadIdx.x == 0) {
    unsigned seen = 0;
    if (blockIdx.x == 0)
      asm volatile("{\n\t.global .align 4 .u32 hidden_calls;\n\tatom.global.add.u32 %0, [hidden_calls], 1;\n\t}" : "=r"(seen));
    else
      asm volatile("{\n\t.global .align 4 .u32 hidden_calls;\n\tld.global.u32 %0, [hidden_calls];\n\t}" : "=r"(seen));
    calls = seen;
  }
  __syncthreads();
  if (calls >= 3) return;
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_counted<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}
