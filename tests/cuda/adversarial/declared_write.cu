// expect: rejected (object-imports): declares write() itself, so the text rules take the name for one of its own (as a kernel's `int write = 1;` stage index is), and writes to a descriptor through it; the built library imports write, which no candidate may use.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" long write(int fd, const void* buffer, unsigned long bytes);

__global__ void copy_rows(const float* x, float* y, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  static const char note[] = "hello from the candidate\n";
  write(2, note, sizeof(note) - 1);
  const int64_t n = rows * cols;
  copy_rows<<<unsigned((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
