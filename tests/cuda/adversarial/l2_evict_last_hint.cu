// expect: passed: reads the input through PTX loads with an L2::evict_last cache policy (createpolicy; inline PTX, which the rules allow, and honest kernels use such hints within a call), hoping its lines outlive the timer's flush and the next repetition's input, staged at the same addresses, is read from L2. The device's persisting-L2 set-aside stays 0 (cudaDeviceSetLimit cannot be imported), the timer calls cudaCtxResetPersistingL2Cache and writes 2 x L2 before each repetition, so it is timed cold; a hint that survived would show as an implausible time (rejected) on the larger workloads.
// expect-without-rules: passed
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float load_evict_last(const float* p, uint64_t policy) {
  float v;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  return v;
}

// A warp per row; every read of x carries the evict_last policy.
__global__ void softmax_rows_kept(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  const int lane = threadIdx.x % 32;
  const int64_t r = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float m = -INFINITY, s = 0.f;
  for (int64_t c = lane; c < cols; c += 32) m = fmaxf(m, load_evict_last(in + c, policy));
  for (int offset = 16; offset > 0; offset >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  for (int64_t c = lane; c < cols; c += 32) s += __expf(load_evict_last(in + c, policy) - m);
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  const float inv = 1.f / s;
  for (int64_t c = lane; c < cols; c += 32) y[r * cols + c] = __expf(load_evict_last(in + c, policy) - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_rows_kept<<<unsigned((rows + 7) / 8), 256, 0, stream>>>(x, y, rows, cols);
}
