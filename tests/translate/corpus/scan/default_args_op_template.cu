// scan: a warp per row; a warp inclusive scan helper with a defaulted operator template parameter and default
// function arguments (op = Op(), width = 32), the row's carry broadcast from lane 31 by __shfl_sync.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
struct Plus {
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

template <typename T, typename Op = Plus<T>>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op = Op(), int width = 32) {
  const int lane = threadIdx.x & (width - 1);
  for (int d = 1; d < width; d <<= 1) {
    const T up = __shfl_up_sync(0xffffffffu, v, d, width);
    if (lane >= d) v = op(v, up);
  }
  return v;
}

__global__ void scan_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + threadIdx.x;
    float v = c < cols ? xr[c] : 0.f;
    v = warp_inclusive_scan(v) + carry;
    if (c < cols) yr[c] = v;
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block(32, 4);
  scan_warp_rows<<<(unsigned)((rows + 3) / 4), block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
