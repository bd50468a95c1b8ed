// rowsum: macros of a header shared with host code, defined once per branch of conditionals that nvcc's preprocessor
// decides: `#ifdef __CUDACC__` qualifiers (KS_DEVICE, the C10_HOST_DEVICE style) with a host `inline` under #else,
// a warp-shuffle macro under `#if defined(__CUDACC__) || defined(__HIPCC__)` with a host stub after it, one chosen by
// `#if !defined(__CUDACC__)` ... `#elif CUDART_VERSION >= 9000` ... `#else`, and `#if __CUDACC_VER_MAJOR__ >= 11` in a
// function body: the port expands each macro as the branch nvcc takes defines it, and the candidate keeps that branch.
#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __CUDACC__
#define KS_DEVICE __device__ __forceinline__
#define KS_HOST_DEVICE __host__ __device__
#else
#define KS_DEVICE inline
#define KS_HOST_DEVICE
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define WARP_SHFL_DOWN(v, o) __shfl_down_sync(0xffffffffu, (v), (o))
#else
#define WARP_SHFL_DOWN(v, o) (0.0f)
#endif

#if !defined(__CUDACC__)
#define LANE_OF(t) 0
#elif CUDART_VERSION >= 9000
#define LANE_OF(t) ((t) & 31)
#else
#define LANE_OF(t) ((t) % 16)
#endif

KS_HOST_DEVICE inline int64_t row_offset(int row, int cols) { return (int64_t)row * cols; }

KS_DEVICE float row_scale() {
#if __CUDACC_VER_MAJOR__ >= 11
  return 1.0f;
#else
  return 0.5f;
#endif
}

__global__ void rowsum_guarded_macros(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += x[row_offset(row, cols) + c];
  for (int o = 16; o; o >>= 1) s += WARP_SHFL_DOWN(s, o);
  if (LANE_OF(threadIdx.x) == 0) y[row] = s * row_scale();
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_guarded_macros<<<rows, 32, 0, stream>>>(x, y, (int)rows, (int)cols);
}
