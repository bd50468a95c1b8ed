// Untranslatable: curandStateMRG32k3a_t (line 8), cuRAND's MRG32k3a generator, which the port does not carry;
// reported where the kernel names it (Philox and XORWOW states are ported).
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdint.h>
__global__ void k_noise(const float* x, float* y, int cols) {
  const int i = blockIdx.x * cols;
  curandStateMRG32k3a_t state;
  curand_init(1234, blockIdx.x, 0, &state);
  y[blockIdx.x] = x[i];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_noise<<<rows, 1, 0, stream>>>(x, y, (int)cols);
}
