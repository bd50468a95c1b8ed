// task: attention
// A block of 4 warps per query row splits the keys four ways; the per-warp (max, sum) partials and the output partials
// meet in `static __shared__` arrays declared inside the merging device function (float2 stats, float accumulators),
// as code ported from older CUDA samples writes block-shared scratch.
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kWarps = 4;
constexpr int kMaxD = 256;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Merges the warps' online-softmax states; returns 1/l for the row and leaves the merged output in acc_out.
__device__ float merge_warps(float m, float l, const float* acc, int64_t d, float* acc_out) {
  static __shared__ float2 stats[kWarps];
  static __shared__ float partial[kWarps][kMaxD];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) stats[warp] = make_float2(m, l);
  for (int64_t c = lane; c < d; c += 32) partial[warp][c] = acc[c / 32];
  __syncthreads();
  float gm = -INFINITY;
  for (int w = 0; w < kWarps; ++w) gm = fmaxf(gm, stats[w].x);
  float gl = 0.f;
  for (int w = 0; w < kWarps; ++w) gl += stats[w].x == -INFINITY ? 0.f : stats[w].y * __expf(stats[w].x - gm);
  for (int64_t c = threadIdx.x; c < d; c += 32 * kWarps) {
    float s = 0.f;
    for (int w = 0; w < kWarps; ++w) s += stats[w].x == -INFINITY ? 0.f : partial[w][c] * __expf(stats[w].x - gm);
    acc_out[c] = s;
  }
  return gl > 0.f ? 1.f / gl : 0.f;
}

__global__ void __launch_bounds__(32 * kWarps) attention_split(const float* __restrict__ q, const float* __restrict__ k,
                                                              const float* __restrict__ v, float* __restrict__ o,
                                                              int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int64_t d,
                                                              int32_t causal, float scale) {
  const int64_t row = blockIdx.x;
  const int64_t i = row % lq, h = (row / lq) % hq, bb = row / (lq * hq), kvh = h / (hq / hkv);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* qi = q + row * d;
  const float* kb = k + (bb * hkv + kvh) * lk * d;
  const float* vb = v + (bb * hkv + kvh) * lk * d;
  const int64_t end = causal ? (i + (lk - lq) + 1 < lk ? i + (lk - lq) + 1 : lk) : lk;
  float acc[kMaxD / 32];
#pragma unroll
  for (int t = 0; t < kMaxD / 32; ++t) acc[t] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int64_t j = warp; j < end; j += kWarps) {
    float part = 0.f;
    for (int64_t c = lane; c < d; c += 32) part = fmaf(qi[c], kb[j * d + c], part);
    const float s = warp_sum(part) * scale;
    const float mn = fmaxf(m, s), corr = __expf(m - mn), p = __expf(s - mn);
    l = l * corr + p;
#pragma unroll
    for (int t = 0; t < kMaxD / 32; ++t) {
      const int64_t c = lane + 32 * t;
      if (c < d) acc[t] = fmaf(p, vb[j * d + c], acc[t] * corr);
    }
    m = mn;
  }
  __shared__ float out[kMaxD];
  const float inv = merge_warps(m, l, acc, d, out);
  for (int64_t c = threadIdx.x; c < d; c += 32 * kWarps) o[row * d + c] = out[c] * inv;
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int64_t rows = b * hq * lq;
  if (rows <= 0 || d > kMaxD) return;
  attention_split<<<unsigned(rows), 32 * kWarps, 0, stream>>>(q, k, v, o, hq, hkv, lq, lk, d, causal, 1.f / sqrtf(float(d)));
}
