// Untranslatable: a struct declared in the kernel (line 7) whose pointer field becomes a template parameter, which
// must move out of the kernel, but whose array field's size is the kernel's own constant.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void rowsum_k(const float* x, float* y, int cols) {
  constexpr int kTaps = 4;
  struct Row {
    const float* p;
    float w[kTaps];
  };
  const Row row{x + (int64_t)blockIdx.x * cols, {1.f, 1.f, 1.f, 1.f}};
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += row.p[c] * row.w[c % kTaps];
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
