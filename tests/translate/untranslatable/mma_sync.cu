// Untranslatable: tensor-core MMA in inline PTX (line 7).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_mma(const float* x, float* y, int cols) {
  unsigned a = 0, b = 0;
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a), "r"(a), "r"(b));
  if (threadIdx.x == 0) y[blockIdx.x] = c0 + c1 + c2 + c3 + x[0] * cols;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_mma<<<rows, 32, 0, stream>>>(x, y, cols);
}
