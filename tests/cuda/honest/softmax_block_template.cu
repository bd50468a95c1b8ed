// task: softmax
// A block per row, templated over the block size and chosen by a host switch; the row is staged in dynamic
// shared memory when it fits (extern __shared__, more than 48 KiB opted in through cudaFuncSetAttribute).
#include <cuda_runtime.h>
#include <algorithm>
#include <cfloat>
#include <cstdint>

namespace ksoftmax {

constexpr int kMaxStagedBytes = 160 * 1024;

template <int BLOCK>
__device__ float block_reduce(float v, float* red, bool is_max) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "block must be whole warps");
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? red[lane] : (is_max ? -FLT_MAX : 0.f);
    for (int o = 16; o > 0; o >>= 1) {
      const float other = __shfl_xor_sync(0xffffffffu, v, o);
      v = is_max ? fmaxf(v, other) : v + other;
    }
    if (lane == 0) red[0] = v;
  }
  __syncthreads();
  const float r = red[0];
  __syncthreads();
  return r;
}

template <int BLOCK, bool STAGED>
__global__ void __launch_bounds__(BLOCK) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  extern __shared__ float staged[];
  __shared__ float red[32];
  const float* in = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  float m = -FLT_MAX;
  for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
    const float v = in[c];
    if (STAGED) staged[c] = v;
    m = fmaxf(m, v);
  }
  m = block_reduce<BLOCK>(m, red, true);
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += BLOCK) s += expf((STAGED ? staged[c] : in[c]) - m);
  s = block_reduce<BLOCK>(s, red, false);
  const float inv = 1.f / s;
  for (int64_t c = threadIdx.x; c < cols; c += BLOCK) out[c] = expf((STAGED ? staged[c] : in[c]) - m) * inv;
}

template <int BLOCK>
void launch(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const size_t bytes = size_t(cols) * sizeof(float);
  if (bytes <= size_t(kMaxStagedBytes)) {
    cudaFuncSetAttribute(softmax_rows<BLOCK, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxStagedBytes);
    softmax_rows<BLOCK, true><<<unsigned(rows), BLOCK, bytes, stream>>>(x, y, cols);
  } else {
    softmax_rows<BLOCK, false><<<unsigned(rows), BLOCK, 0, stream>>>(x, y, cols);
  }
}

}  // namespace ksoftmax

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return;
  // Enough threads for a float per thread per few iterations, whole warps, at most 1024.
  const auto pick = [](int64_t n) { return int(std::min<int64_t>(1024, std::max<int64_t>(32, (n + 3) / 4))); };
  switch (pick(cols)) {
    case 1024: return ksoftmax::launch<1024>(x, y, rows, cols, stream);
    default:
      if (pick(cols) > 256) return ksoftmax::launch<512>(x, y, rows, cols, stream);
      if (pick(cols) > 64) return ksoftmax::launch<256>(x, y, rows, cols, stream);
      return ksoftmax::launch<64>(x, y, rows, cols, stream);
  }
}
