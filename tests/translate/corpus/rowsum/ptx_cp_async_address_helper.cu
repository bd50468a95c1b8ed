// A row staged in chunks of 64 floats by 4-byte cp.async copies whose shared addresses come from a helper returning
// __cvta_generic_to_shared of its `const void*` parameter: in the copy's operand (even rows' chunks, from an untyped
// source) and through a variable (odd rows'). A timing helper no launched kernel calls (clock64) is left out.
#include <cuda_runtime.h>
#include <stdint.h>

#define CP_ASYNC_CA4(dst, src) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src))

__device__ __forceinline__ uint32_t cvta_to_shared_u32(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}
__device__ long long elapsed_since(long long start) { return clock64() - start; }

constexpr int kThreads = 64;

__global__ void rowsum_address_helper(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float chunk[kThreads];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += kThreads) {
    const int n = min(kThreads, cols - c0);
    if (threadIdx.x < n) {
      if (blockIdx.x % 2 == 0) {
        const void* from = row + c0 + threadIdx.x;  // untyped: read as the destination's float
        CP_ASYNC_CA4(cvta_to_shared_u32(&chunk[threadIdx.x]), from);
      } else {
        const uint32_t slot = cvta_to_shared_u32(chunk + threadIdx.x);
        CP_ASYNC_CA4(slot, row + c0 + threadIdx.x);
      }
    }
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    if (threadIdx.x == 0)
      for (int i = 0; i < n; ++i) s += chunk[i];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_address_helper<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
