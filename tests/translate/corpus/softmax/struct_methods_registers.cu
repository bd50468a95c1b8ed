// An online-softmax accumulator struct with __device__ methods, a register array under #pragma
// unroll, float2 shuffles of its members, an anonymous namespace and a static kernel.
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

struct Online {
  float m, s;
  __device__ void add(float v) {
    const float nm = fmaxf(m, v);
    s = s * __expf(m - nm) + __expf(v - nm);
    m = nm;
  }
  __device__ void merge(float om, float os) {
    const float nm = fmaxf(m, om);
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
  }
};

constexpr int kChunk = 4;

static __global__ void softmax_struct(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  Online acc{-1e30f, 0.f};
  for (int base = 0; base < cols; base += 32 * kChunk) {
    float regs[kChunk];
#pragma unroll
    for (int i = 0; i < kChunk; ++i) {
      const int c = base + i * 32 + threadIdx.x;
      regs[i] = c < cols ? in[c] : -1e30f;
    }
#pragma unroll
    for (int i = 0; i < kChunk; ++i)
      if (base + i * 32 + (int)threadIdx.x < cols) acc.add(regs[i]);
  }
  for (int o = 16; o > 0; o >>= 1) {
    float2 other = make_float2(acc.m, acc.s);
    other.x = __shfl_xor_sync(0xffffffffu, other.x, o);
    other.y = __shfl_xor_sync(0xffffffffu, other.y, o);
    acc.merge(other.x, other.y);
  }
  for (int c = threadIdx.x; c < cols; c += 32) out[c] = __expf(in[c] - acc.m) / acc.s;
}

}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block(32);
  softmax_struct<<<rows, block, 0, stream>>>(x, y, (int)cols);
}
