// FlashAttention's BOOL_SWITCH: a macro that calls a lambda whose branches each define a constexpr flag and call the
// lambda given to it, nested twice (four launches, each inside three lambdas, chosen by the ifs of the outer ones).
#include <cuda_runtime.h>
#include <cstdint>

#define BOOL_SWITCH(COND, CONST_NAME, ...)      \
  [&] {                                         \
    if (COND) {                                 \
      constexpr static bool CONST_NAME = true;  \
      return __VA_ARGS__();                     \
    } else {                                    \
      constexpr static bool CONST_NAME = false; \
      return __VA_ARGS__();                     \
    }                                           \
  }()

template <bool kVec4, int kThreads>
__global__ void rowsum_k(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[kThreads];
  float s = 0.f;
  if (kVec4) {
    const float4* row = reinterpret_cast<const float4*>(x + blockIdx.x * cols);
    for (int64_t i = threadIdx.x; i < cols / 4; i += kThreads) {
      const float4 v = row[i];
      s += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) s += x[blockIdx.x * cols + i];
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const bool vec4 = cols % 4 == 0;
  BOOL_SWITCH(vec4, kVec4, [&] {
    BOOL_SWITCH(cols >= 1024, kWide, [&] {
      constexpr int kThreads = kWide ? 256 : 64;
      rowsum_k<kVec4, kThreads><<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
    });
  });
}
