// Untranslatable: a shared-window address (line 8) that later cp.async operands offset by bytes (base + 4 * i).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_offsets(const float* x, float* y, int cols) {
  __shared__ float buf[64];
  const float* row = x + (int64_t)blockIdx.x * cols;
  // one base address, offset per copy
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  for (int i = threadIdx.x; i < 64 && i < cols; i += 32)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(base + 4 * i), "l"(row + i));
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = buf[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_offsets<<<rows, 32, 0, stream>>>(x, y, cols);
}
