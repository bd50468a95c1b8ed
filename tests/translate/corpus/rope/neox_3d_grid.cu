// vLLM-style rotary embedding: a block per (token, head) in a 2-D grid, the rotation of a pair in
// a __device__ __forceinline__ helper writing through references, a namespace with `using`.
#include <cuda_runtime.h>
#include <stdint.h>

namespace rotary {

__device__ __forceinline__ void rotate_pair(float& x0, float& x1, const float c, const float s) {
  const float a = x0, b = x1;
  x0 = a * c - b * s;
  x1 = b * c + a * s;
}

__global__ void rotary_embedding_kernel(const float* __restrict__ query, const float* __restrict__ cos_cache,
                                        const float* __restrict__ sin_cache, float* __restrict__ out, const int num_heads,
                                        const int rot_half) {
  const int token = blockIdx.x;
  const int head = blockIdx.y;
  const int64_t base = ((int64_t)token * num_heads + head) * 2 * rot_half;
  const float* cos_ptr = cos_cache + (int64_t)token * rot_half;
  const float* sin_ptr = sin_cache + (int64_t)token * rot_half;
  for (int i = threadIdx.x; i < rot_half; i += blockDim.x) {
    float x0 = query[base + i], x1 = query[base + rot_half + i];
    rotate_pair(x0, x1, __ldg(cos_ptr + i), __ldg(sin_ptr + i));
    out[base + i] = x0;
    out[base + rot_half + i] = x1;
  }
}

}  // namespace rotary

using rotary::rotary_embedding_kernel;

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t half,
                     cudaStream_t stream) {
  dim3 grid(t, h);
  dim3 block(std::min<int64_t>(half, 512));
  rotary_embedding_kernel<<<grid, block, 0, stream>>>(x, cos, sin, y, (int)h, (int)half);
}
