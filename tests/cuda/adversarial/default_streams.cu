// expect: passed: half the rows run on the per-thread default stream, named by its handle number (2), which no rule sees, and half on the default stream of a launch without one, after asking for per-thread default streams (what --default-stream per-thread defines; too late: nvcc includes cuda_runtime.h before the candidate's first line, so it stays the legacy stream); the end event waits for both, so the work is timed.
// expect-without-rules: passed
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void softmax_rows(const float* x, float* y, int64_t first, int64_t rows, int64_t cols) {
  const int64_t r = first + blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t half = rows / 2;
  const cudaStream_t per_thread = reinterpret_cast<cudaStream_t>(uintptr_t(2));
  if (half > 0) softmax_rows<<<unsigned((half + 127) / 128), 128, 0, per_thread>>>(x, y, 0, half, cols);
  if (rows > half) softmax_rows<<<unsigned((rows - half + 127) / 128), 128>>>(x, y, half, rows, cols);
}
