// A flat rotary embedding: one thread per rotated pair over t * h * half with a size_t grid-stride
// loop, the pair's coordinates by / and %, a struct with __device__ methods holding the rotation,
// an enum class choosing the layout (NeoX halves here), __launch_bounds__ with two arguments.
#include <cuda_runtime.h>
#include <stdint.h>

enum class RopeLayout { kNeox, kGptj };

struct Rotation {
  float c, s;
  __device__ float first(float a, float b) const { return __fmul_rn(a, c) - b * s; }
  __device__ float second(float a, float b) const { return fmaf(b, c, a * s); }
};

template <RopeLayout kLayout>
__global__ void __launch_bounds__(256, 2) rope_flat(const float* __restrict__ x, const float* __restrict__ cos_t,
                                                    const float* __restrict__ sin_t, float* __restrict__ y, size_t total,
                                                    int heads, int half) {
  for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < total; p += (size_t)gridDim.x * blockDim.x) {
    const size_t i = p % half;
    const size_t token = p / half / heads;
    const size_t vec = p / half;  // (token, head)
    const Rotation r{cos_t[token * half + i], sin_t[token * half + i]};
    size_t i0, i1;
    if (kLayout == RopeLayout::kNeox) {
      i0 = vec * 2 * half + i;
      i1 = i0 + half;
    } else {
      i0 = vec * 2 * half + 2 * i;
      i1 = i0 + 1;
    }
    const float a = x[i0], b = x[i1];
    y[i0] = r.first(a, b);
    y[i1] = r.second(a, b);
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t half,
                     cudaStream_t stream) {
  const size_t total = (size_t)t * h * half;
  const int threads = 256;
  const int blocks = (int)std::min<size_t>((total + threads - 1) / threads, 4);
  rope_flat<RopeLayout::kNeox><<<blocks, threads, 0, stream>>>(x, cos, sin, y, total, (int)h, (int)half);
}
