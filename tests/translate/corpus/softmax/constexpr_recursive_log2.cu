// softmax: a warp per row with the elements of a row held in registers (cols <= 32 * kElems), kElems a power of two
// from a recursive constexpr log2 (PyTorch's style), a struct declared inside the kernel body, a fallback
// block kernel for long rows chosen by the host.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int log2_ceil(int n) { return n <= 1 ? 0 : 1 + log2_ceil((n + 1) / 2); }

template <int kLog2Elems>
__global__ void softmax_regs(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  constexpr int kElems = 1 << kLog2Elems;
  struct Stats {
    float max;
    float sum;
    __device__ void reduce() {
      for (int o = 16; o > 0; o >>= 1) max = fmaxf(max, __shfl_xor_sync(0xffffffffu, max, o));
    }
  };
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float v[kElems];
  Stats st{-INFINITY, 0.f};
#pragma unroll
  for (int i = 0; i < kElems; ++i) {
    const int c = threadIdx.x + 32 * i;
    v[i] = c < cols ? xr[c] : -INFINITY;
    st.max = fmaxf(st.max, v[i]);
  }
  st.reduce();
#pragma unroll
  for (int i = 0; i < kElems; ++i) {
    v[i] = expf(v[i] - st.max);
    st.sum += v[i];
  }
  for (int o = 16; o > 0; o >>= 1) st.sum += __shfl_xor_sync(0xffffffffu, st.sum, o);
  float* yr = y + (size_t)row * cols;
#pragma unroll
  for (int i = 0; i < kElems; ++i) {
    const int c = threadIdx.x + 32 * i;
    if (c < cols) yr[c] = v[i] / st.sum;
  }
}

__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float red[32];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = m;
  __syncthreads();
  m = red[0];
  for (int i = 1; i < (int)(blockDim.x / 32); ++i) m = fmaxf(m, red[i]);
  __syncthreads();
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0.f;
  for (int i = 0; i < (int)(blockDim.x / 32); ++i) s += red[i];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = expf(xr[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols <= 32 * 32) {
    constexpr int kLog2 = log2_ceil(32);  // up to 32 registers per lane
    const dim3 block(32, 4);
    softmax_regs<kLog2><<<(unsigned)((rows + 3) / 4), block, 0, stream>>>(x, y, (int)rows, (int)cols);
  } else {
    softmax_block<<<(unsigned)rows, 256, 0, stream>>>(x, y, (int)cols);
  }
}
