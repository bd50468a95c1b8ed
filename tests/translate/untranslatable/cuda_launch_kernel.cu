// Untranslatable: a launch through the runtime API (line 20), cudaLaunchKernel with an argument array (as
// code generators that launch type-erased kernels do): the kernel's arguments are addresses in an array.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_warp(const float* x, float* y, int64_t cols) {
  const float* row = x + blockIdx.x * cols;
  float s = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += 32) s += row[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  void* args[] = {(void*)&x, (void*)&y, (void*)&cols};
  dim3 grid((unsigned)rows);
  dim3 block(32);
  // the same launch as rowsum_warp<<<grid, block, 0, stream>>>(x, y, cols)

  cudaLaunchKernel((const void*)rowsum_warp, grid, block, args, 0, stream);
}
