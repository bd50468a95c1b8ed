// constexpr helpers without __device__ (`ceil_div`, `warps_of`), which nvcc's --expt-relaxed-constexpr lets device code
// call, used in a shared array's size, a loop bound and the block's warp loop; a warp shuffle sum, the warps' sums
// added by thread 0.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 128;
constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr int warps_of(int threads) { return ceil_div(threads, 32); }

__global__ void rowsum_constexpr(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float partial[warps_of(kThreads)];
  const int per_thread = ceil_div(cols, kThreads);
  float s = 0.f;
  for (int k = 0; k < per_thread; ++k) {
    const int c = k * kThreads + threadIdx.x;
    if (c < cols) s += x[(int64_t)blockIdx.x * cols + c];
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < warps_of(kThreads); ++w) t += partial[w];
    y[blockIdx.x] = t;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_constexpr<<<(unsigned)rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
