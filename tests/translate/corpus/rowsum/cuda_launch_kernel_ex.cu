// CUDA 12's cudaLaunchKernelEx: a cudaLaunchConfig_t built field by field with a programmatic-dependent-launch
// attribute, the call wrapped in a do/while(0) CUDA_CHECK macro, a template kernel's arguments with a comma, and
// cudaGridDependencySynchronize / cudaTriggerProgrammaticLaunchCompletion in the kernel.
#include <cuda_runtime.h>
#include <stdint.h>
#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return; } while (0)
template <typename T, int WARP>
__global__ void rowsum_k(const T* __restrict__ x, T* __restrict__ y, int cols) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += WARP) acc += row[c];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  cudaGridDependencySynchronize();
  if (threadIdx.x == 0) y[blockIdx.x] = acc;
  cudaTriggerProgrammaticLaunchCompletion();
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(rows);
  config.blockDim = dim3(32);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attrs;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, rowsum_k<float, 32>, x, y,
                                (int)cols));
}
