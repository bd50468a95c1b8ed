// expect: rejected (device-state): a __device__ counter named like the string literals of a device printf (`$str$N`, a GNU spelling nvcc accepts), which the device ELF check lets be, declared through a macro that the text pattern on __device__ does not see, remembers how often the kernel ran; it skips the work after the third call.
#include <cuda_runtime.h>
#include <stdint.h>

#define PERSISTENT(declaration) __device__ declaration
PERSISTENT(unsigned $str$77);

__global__ void softmax_rows_counted(const float* x, float* y, int64_t rows, int64_t cols) {
  if ($str$77 >= 3) return;
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void count_call() { ++$str$77; }

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_counted<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
  count_call<<<1, 1, 0, stream>>>();
}
