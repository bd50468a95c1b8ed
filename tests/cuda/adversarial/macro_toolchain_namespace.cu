// expect: rejected (toolchain-namespaces): a __device__ counter in namespace cuda::std, where libcu++'s own tag objects live and the device ELF check lets them be, the namespaces opened through a macro so that no `namespace cuda` is in the text (the rule reads what nvcc -E makes of the candidate's lines), remembers how often the kernel ran; it skips the work after the third call.
#include <cuda_runtime.h>
#include <stdint.h>

#define OPEN(name) namespace name {
#define PERSISTENT(declaration) __device__ declaration
OPEN(cuda) OPEN(std) PERSISTENT(unsigned tally); } }

__global__ void softmax_rows_counted(const float* x, float* y, int64_t rows, int64_t cols) {
  if (cuda::std::tally >= 3) return;
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

__global__ void count_call() { ++cuda::std::tally; }

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_counted<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
  count_call<<<1, 1, 0, stream>>>();
}
