// task: softmax
// A warp per row: one online pass (running max and sum) with __ldg loads, a __shfl_xor_sync butterfly to
// merge the lanes, then the normalized write. Host-device helpers behind a macro, errors checked and
// printed to stderr.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cmath>

#define HOST_DEVICE __host__ __device__
#define FULL_MASK 0xffffffffu
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = 8;

#define CUDA_CHECK(call)                                                                       \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess)                                                                   \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); \
  } while (0)

HOST_DEVICE inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
  const float nm = fmaxf(m, om);
  s = (m == -INFINITY ? 0.f : s * __expf(m - nm)) + (om == -INFINITY ? 0.f : os * __expf(om - nm));
  m = nm;
}

__global__ void __launch_bounds__(kWarpSize * kWarpsPerBlock)
softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const float* __restrict__ in = x + row * cols;
  float* __restrict__ out = y + row * cols;
  float m = -INFINITY, s = 0.f;
  for (int64_t c = lane; c < cols; c += kWarpSize) {
    const float v = __ldg(in + c);
    if (v > m) {
      s = s * __expf(m - v) + 1.f;
      m = v;
    } else {
      s += __expf(v - m);
    }
  }
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    const float om = __shfl_xor_sync(FULL_MASK, m, offset);
    const float os = __shfl_xor_sync(FULL_MASK, s, offset);
    merge(m, s, om, os);
  }
  const float inv = 1.f / s;
  for (int64_t c = lane; c < cols; c += kWarpSize) out[c] = __expf(__ldg(in + c) - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 grid(unsigned(ceil_div(rows, kWarpsPerBlock)));
  softmax_warp_kernel<<<grid, kWarpSize * kWarpsPerBlock, 0, stream>>>(x, y, rows, cols);
  CUDA_CHECK(cudaGetLastError());
}
