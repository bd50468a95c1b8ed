// softmax, built-in cuda template family warp_online: one warp per row, online max/sum, no block barriers.
// Knobs: ksearch replaces each #define below with the value it tries (warp_online.toml lists them).
#define THREADS 256

#include "online_softmax.cuh"

// One warp per row, ROWS_PER_BLOCK rows per block: no block barriers, best for short rows.
__global__ void __launch_bounds__(THREADS) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(THREADS / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  const int lane = threadIdx.x % 32;
  const float* row = x + r * cols;
  float* out = y + r * cols;
  float m = -INFINITY, s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = lane; i < cols / 4; i += 32) {
      const float4 v = __ldg(r4 + i);
      add(m, s, v.x); add(m, s, v.y); add(m, s, v.z); add(m, s, v.w);
    }
  } else {
    for (int64_t i = lane; i < cols; i += 32) add(m, s, __ldg(row + i));
  }
  warp_merge(m, s);
  const float inv = 1.0f / s;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = lane; i < cols / 4; i += 32) {
      const float4 v = __ldg(r4 + i);
      __stcs(o4 + i, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv));
    }
  } else {
    for (int64_t i = lane; i < cols; i += 32) out[i] = __expf(__ldg(row + i) - m) * inv;
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t per_block = THREADS / 32;
  if (rows > 0 && cols > 0) softmax_rows<<<unsigned((rows + per_block - 1) / per_block), THREADS, 0, stream>>>(x, y, rows, cols);
}
