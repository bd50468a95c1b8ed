// task: attention
// Unfused attention through a workspace: the scores of every (batch, head) go to scratch memory taken with
// cudaMallocAsync on the stream (one kernel, 16x16 tiles through shared memory), a second kernel turns each row
// into probabilities and multiplies by V; launches checked with cudaGetLastError, the scratch freed on the stream.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace unfused {

struct Dims {
  int64_t b, hq, hkv, lq, lk, d;
  int causal;
};

constexpr int kTile = 16;
__device__ __constant__ float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ bool visible(const Dims& s, int64_t i, int64_t j) { return !s.causal || j <= i + s.lk - s.lq; }

__global__ void scores(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ S, Dims s, float scale) {
  __shared__ float Qt[kTile][kTile + 1], Kt[kTile][kTile + 1];
  const int64_t bh = blockIdx.z, batch = bh / s.hq, kvh = (bh % s.hq) / (s.hq / s.hkv);
  const int64_t i = int64_t(blockIdx.y) * kTile + threadIdx.y, j = int64_t(blockIdx.x) * kTile + threadIdx.x;
  const float* qb = q + bh * s.lq * s.d;
  const float* kb = k + (batch * s.hkv + kvh) * s.lk * s.d;
  float acc = 0.f;
  for (int64_t c0 = 0; c0 < s.d; c0 += kTile) {
    const int64_t kj = int64_t(blockIdx.x) * kTile + threadIdx.y;
    Qt[threadIdx.y][threadIdx.x] = i < s.lq && c0 + threadIdx.x < s.d ? qb[i * s.d + c0 + threadIdx.x] : 0.f;
    Kt[threadIdx.y][threadIdx.x] = kj < s.lk && c0 + threadIdx.x < s.d ? kb[kj * s.d + c0 + threadIdx.x] : 0.f;
    __syncthreads();
#pragma unroll
    for (int c = 0; c < kTile; ++c) acc += Qt[threadIdx.y][c] * Kt[threadIdx.x][c];
    __syncthreads();
  }
  if (i < s.lq && j < s.lk) S[(bh * s.lq + i) * s.lk + j] = visible(s, i, j) ? acc * scale * kLog2e : -INFINITY;
}

// A block per query row: the row's max and sum, then each thread owns output columns.
__global__ void softmax_pv(const float* __restrict__ S, const float* __restrict__ v, float* __restrict__ o, Dims s) {
  extern __shared__ float p[];  // the row's probabilities, lk floats
  __shared__ float red[32];
  const int64_t row = blockIdx.x, bh = row / s.lq, batch = bh / s.hq, kvh = (bh % s.hq) / (s.hq / s.hkv);
  const float* srow = S + row * s.lk;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < s.lk; j += blockDim.x) m = fmaxf(m, srow[j]);
  for (int off = 16; off; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
  __syncthreads();
  m = -INFINITY;
  for (int w = 0; w < int(blockDim.x / 32); ++w) m = fmaxf(m, red[w]);
  __syncthreads();
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < s.lk; j += blockDim.x) {
    p[j] = m == -INFINITY ? 0.f : exp2f(srow[j] - m);
    sum += p[j];
  }
  for (int off = 16; off; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = sum;
  __syncthreads();
  sum = 0.f;
  for (int w = 0; w < int(blockDim.x / 32); ++w) sum += red[w];
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  const float* vb = v + (batch * s.hkv + kvh) * s.lk * s.d;
  for (int64_t c = threadIdx.x; c < s.d; c += blockDim.x) {
    float acc = 0.f;
    for (int64_t j = 0; j < s.lk; ++j) acc += p[j] * vb[j * s.d + c];
    o[row * s.d + c] = acc * inv;
  }
}

bool check(const char* stage) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) fprintf(stderr, "attention (%s): %s\n", stage, cudaGetErrorString(e));
  return e == cudaSuccess;
}

}  // namespace unfused

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv, int64_t lq,
                          int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  using namespace unfused;
  const Dims s{b, hq, hkv, lq, lk, d, causal};
  if (b * hq * lq == 0) return;
  float* S = nullptr;
  if (cudaMallocAsync(&S, sizeof(float) * size_t(b * hq * lq * lk), stream) != cudaSuccess) return;
  const dim3 block(kTile, kTile), grid(unsigned((lk + kTile - 1) / kTile), unsigned((lq + kTile - 1) / kTile), unsigned(b * hq));
  scores<<<grid, block, 0, stream>>>(q, k, S, s, 1.f / sqrtf(float(d)));
  const int threads = int(std::min<int64_t>(256, std::max<int64_t>(32, (std::max(lk, d) + 31) / 32 * 32)));
  const size_t smem = sizeof(float) * size_t(lk);
  if (check("scores")) {
    if (smem > 48 * 1024) cudaFuncSetAttribute(softmax_pv, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    softmax_pv<<<unsigned(b * hq * lq), threads, smem, stream>>>(S, v, o, s);
    check("softmax_pv");
  }
  cudaFreeAsync(S, stream);
}
