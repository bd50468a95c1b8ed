// Untranslatable: ldmatrix in inline PTX (line 7).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_ldm(const float* x, float* y, int cols) {
  __shared__ unsigned short tile[256];
  unsigned r0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"((unsigned)(size_t)tile));
  if (threadIdx.x == 0) y[blockIdx.x] = r0 + x[0] * cols;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_ldm<<<rows, 32, 0, stream>>>(x, y, cols);
}
