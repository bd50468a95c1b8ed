// A warp per row: each lane keeps its own sorted top-4 (a struct with operator< and operator> members),
// then 4 rounds of a warp argmax over the lanes' heads (__shfl_xor_sync on the struct's members,
// ties by lane), the winning lane pops its head.
#include <cuda_runtime.h>
#include <cfloat>
#include <stdint.h>

constexpr int K = 4;

struct Cand {
  float v;
  int lane;
  __device__ bool operator>(const Cand& o) const { return v > o.v || (v == o.v && lane < o.lane); }
  __device__ bool operator<(const Cand& o) const { return o > *this; }
};

__device__ __forceinline__ Cand shfl_xor(Cand c, int m) {
  c.v = __shfl_xor_sync(0xffffffffu, c.v, m);
  c.lane = __shfl_xor_sync(0xffffffffu, c.lane, m);
  return c;
}

__global__ void topk_warp(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int lane = threadIdx.x;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float top[K];
#pragma unroll
  for (int j = 0; j < K; ++j) top[j] = -FLT_MAX;
  for (int c = lane; c < cols; c += 32) {
    float v = xr[c];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      if (v > top[j]) {
        const float t = top[j];
        top[j] = v;
        v = t;
      }
    }
  }
  int head = 0;
  for (int k = 0; k < K; ++k) {
    Cand best{head < K ? top[head] : -FLT_MAX, lane};
    if (head >= K) best.v = -FLT_MAX;
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      const Cand other = shfl_xor(best, m);
      if (best < other) best = other;
    }
    if (lane == 0) y[(size_t)blockIdx.x * K + k] = best.v;
    if (lane == best.lane) ++head;
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  topk_warp<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
