// Each thread stages its own 4 columns of a row chunk by cp.async (16-byte copies where the row allows, else 4-byte
// ones zero-filled past the end) and reads them after its own __pipeline_wait_prior(0), no barrier: CUDA makes a
// thread's copies visible to itself at its wait. Then a warp-shuffle and shared-memory block sum.
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 64;

__global__ void rowsum_staged(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float4 chunk[kThreads];
  __shared__ float warp_sums[kThreads / 32];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += 4 * kThreads) {
    const int c = c0 + 4 * threadIdx.x;
    if (cols % 4 == 0 && c + 4 <= cols) {
      __pipeline_memcpy_async(&chunk[threadIdx.x], row + c, sizeof(float4));
    } else {
      float* own = reinterpret_cast<float*>(&chunk[threadIdx.x]);
      for (int e = 0; e < 4; ++e)
        __pipeline_memcpy_async(own + e, row + min(c + e, cols - 1), sizeof(float), c + e < cols ? 0 : sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    const float4 v = chunk[threadIdx.x];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = warp_sums[0] + warp_sums[1];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_staged<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
