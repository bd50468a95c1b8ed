// expect: rejected (host-memory): counts calls in managed memory (a __managed__ variable, which keeps its value from call to call), its attribute spelled __attribute__((managed)) with the word token-pasted; the rules on nvcc -E's output see the pasted word. Skips the work after the third call.
#include <cuda_runtime.h>
#include <stdint.h>
#define CAT(a, b) a##b
#define KEPT __attribute__((CAT(mana, ged))) __attribute__((device))

KEPT unsigned call_count;

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void count_call() { ++call_count; }

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_call<<<1, 1, 0, stream>>>();
  softmax_rows<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}
