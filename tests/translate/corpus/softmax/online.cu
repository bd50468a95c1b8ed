// Online softmax (running max and rescaled sum) with a struct, a __device__ combine function and shuffles.
#include <cuda_runtime.h>
#include <stdint.h>

struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a;  // both empty (lanes past a short row): -inf - -inf would be NaN
  MaxSum r;
  r.m = m;
  r.s = a.s * __expf(a.m - m) + b.s * __expf(b.m - m);
  return r;
}

__global__ void softmax_online(const float* x, float* y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  MaxSum acc = {-INFINITY, 0.0f};
  for (int c = threadIdx.x; c < cols; c += 32) {
    MaxSum one = {row[c], 1.0f};
    acc = combine(acc, one);
  }
  for (int o = 16; o > 0; o >>= 1) {
    MaxSum other;
    other.m = __shfl_xor_sync(0xffffffff, acc.m, o);
    other.s = __shfl_xor_sync(0xffffffff, acc.s, o);
    acc = combine(acc, other);
  }
  const float inv = 1.0f / acc.s;
  for (int c = threadIdx.x; c < cols; c += 32) y[(int64_t)blockIdx.x * cols + c] = __expf(row[c] - acc.m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_online<<<rows, 32, 0, stream>>>(x, y, cols);
}
