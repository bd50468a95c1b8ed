// rope: PyTorch's at::detail::Array-style register wrapper (operator[] returning T& and const T&) holding each
// thread's pairs, a 2-D grid over (token, head) with threads over the pairs in steps of 4 per thread.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T, int N>
struct alignas(16) Array {
  T data[N];
  __host__ __device__ T& operator[](int i) { return data[i]; }
  __host__ __device__ const T& operator[](int i) const { return data[i]; }
  static constexpr int size() { return N; }
};

constexpr int kPerThread = 4;

__global__ void rope_array(const float* __restrict__ x, const float* __restrict__ cos_t, const float* __restrict__ sin_t,
                           float* __restrict__ y, int heads, int rot) {
  const int token = blockIdx.x, head = blockIdx.y;
  const size_t base = ((size_t)token * heads + head) * 2 * rot;
  for (int i0 = threadIdx.x * kPerThread; i0 < rot; i0 += blockDim.x * kPerThread) {
    Array<float, kPerThread> a, b, c, s;
#pragma unroll
    for (int j = 0; j < a.size(); ++j) {
      const int i = i0 + j;
      const bool ok = i < rot;
      a[j] = ok ? x[base + i] : 0.f;
      b[j] = ok ? x[base + rot + i] : 0.f;
      c[j] = ok ? cos_t[(size_t)token * rot + i] : 0.f;
      s[j] = ok ? sin_t[(size_t)token * rot + i] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const int i = i0 + j;
      if (i < rot) {
        y[base + i] = a[j] * c[j] - b[j] * s[j];
        y[base + rot + i] = b[j] * c[j] + a[j] * s[j];
      }
    }
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t rot,
                     cudaStream_t stream) {
  int threads = (int)((rot + kPerThread - 1) / kPerThread);
  threads = threads < 32 ? 32 : (threads > 256 ? 256 : threads);
  rope_array<<<dim3((unsigned)t, (unsigned)h), threads, 0, stream>>>(x, cos, sin, y, (int)h, (int)rot);
}
