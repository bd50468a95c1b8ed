// cp.async in inline PTX at byte offsets from one shared-window address: `base = __cvta_generic_to_shared(buf)` once,
// then operands `base + 4 * i` and `base + 16 * q + 4 * e` (offsets in bytes, nested sums); chunks of the row staged
// through shared memory, summed by a warp.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_cp_async_offsets(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float buf[128];
  const float* row = x + (int64_t)blockIdx.x * cols;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  float sum = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 128) {
    for (int i = threadIdx.x; i < 64; i += 32)
      if (c0 + i < cols) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(base + 4 * i), "l"(row + c0 + i));
    for (int q = threadIdx.x; q < 16; q += 32)
      for (int e = 0; e < 4; ++e)
        if (c0 + 64 + 4 * q + e < cols)
          asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(base + 256 + 16 * q + 4 * e), "l"(row + c0 + 64 + 4 * q + e));
    asm volatile("cp.async.wait_all;\n" ::);
    __syncwarp();
    for (int i = threadIdx.x; i < 128 && c0 + i < cols; i += 32) sum += buf[i];
    __syncwarp();
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x == 0) y[blockIdx.x] = sum;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cp_async_offsets<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
