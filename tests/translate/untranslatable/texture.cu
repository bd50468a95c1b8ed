// Untranslatable: a texture fetch (line 5).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_tex(const float* x, float* y, int cols, cudaTextureObject_t tex) {
  if (threadIdx.x == 0) y[blockIdx.x] = tex1Dfetch<float>(tex, blockIdx.x) + x[0] * cols;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_tex<<<rows, 32, 0, stream>>>(x, y, cols, 0);
}
