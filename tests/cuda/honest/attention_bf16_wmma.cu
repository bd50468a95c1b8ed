// task: attention_bf16
// Flash attention with nvcuda::wmma: a warp per 16 query rows, keys in tiles of 16; S = Q K^T and O += P V on
// bf16 fragments with fp32 accumulators, the online softmax in between on S staged in shared memory (two lanes a
// row), O kept in shared memory as fp32 and reloaded as an accumulator fragment. Head sizes: multiples of 16 up to 128.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <cstdint>
#include <cstdio>

using namespace nvcuda;

constexpr int kRows = 16;  // query rows per warp, and keys per tile
constexpr int kMaxD = 128;

struct Shape {
  int64_t b, hq, hkv, lq, lk, d;
  int causal;
  float scale;
};

__global__ void __launch_bounds__(32) attention_wmma(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                                     const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, Shape s) {
  __shared__ __align__(32) __nv_bfloat16 Qs[kRows * kMaxD];
  __shared__ __align__(32) __nv_bfloat16 Ks[kRows * kMaxD];
  __shared__ __align__(32) __nv_bfloat16 Vs[kRows * kMaxD];
  __shared__ __align__(32) float Ss[kRows * kRows];
  __shared__ __align__(32) __nv_bfloat16 Ps[kRows * kRows];
  __shared__ __align__(32) float Os[kRows * kMaxD];
  const int lane = threadIdx.x, d = int(s.d);
  const int64_t bh = blockIdx.y, batch = bh / s.hq, head = bh % s.hq, kv_head = head / (s.hq / s.hkv);
  const int64_t q0 = int64_t(blockIdx.x) * kRows;
  const __nv_bfloat16* qb = q + (bh * s.lq) * d;
  const __nv_bfloat16* kb = k + ((batch * s.hkv + kv_head) * s.lk) * d;
  const __nv_bfloat16* vb = v + ((batch * s.hkv + kv_head) * s.lk) * d;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);
  for (int i = lane; i < kRows * d; i += 32) {
    const int64_t r = q0 + i / d;
    Qs[i] = r < s.lq ? qb[r * d + i % d] : zero;
    Os[i] = 0.f;
  }
  // Lanes 2r and 2r+1 own row r: columns [8 * (lane & 1), + 8) of S and half of O's columns.
  const int row = lane / 2, half = lane & 1;
  const int64_t qi = q0 + row;
  float m = -INFINITY, l = 0.f;
  const int64_t shift = s.lk - s.lq;  // causal: query i sees keys j <= i + shift
  int64_t kend = s.lk;
  if (s.causal) kend = min(s.lk, q0 + kRows - 1 + shift + 1);
  for (int64_t j0 = 0; j0 < kend; j0 += kRows) {
    __syncwarp();
    for (int i = lane; i < kRows * d; i += 32) {
      const int64_t j = j0 + i / d;
      Ks[i] = j < s.lk ? kb[j * d + i % d] : zero;
      Vs[i] = j < s.lk ? vb[j * d + i % d] : zero;
    }
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int dd = 0; dd < d; dd += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> bk;
      wmma::load_matrix_sync(a, Qs + dd, d);
      wmma::load_matrix_sync(bk, Ks + dd, d);
      wmma::mma_sync(acc, a, bk, acc);
    }
    wmma::store_matrix_sync(Ss, acc, kRows, wmma::mem_row_major);
    __syncwarp();
    float p[8], tile_max = -INFINITY;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      const int64_t j = j0 + half * 8 + c;
      const bool visible = qi < s.lq && j < s.lk && (!s.causal || j <= qi + shift);
      p[c] = visible ? Ss[row * kRows + half * 8 + c] * s.scale : -INFINITY;
      tile_max = fmaxf(tile_max, p[c]);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float m_new = fmaxf(m, tile_max);
    const float alpha = m_new == -INFINITY ? 1.f : __expf(m - m_new);
    float sum = 0.f;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      p[c] = m_new == -INFINITY ? 0.f : __expf(p[c] - m_new);
      sum += p[c];
      Ps[row * kRows + half * 8 + c] = __float2bfloat16(p[c]);
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l = l * alpha + sum;
    m = m_new;
    for (int c = half; c < d; c += 2) Os[row * d + c] *= alpha;
    __syncwarp();
    for (int dd = 0; dd < d; dd += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pa;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vb_frag;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> oacc;
      wmma::load_matrix_sync(pa, Ps, kRows);
      wmma::load_matrix_sync(vb_frag, Vs + dd, d);
      wmma::load_matrix_sync(oacc, Os + dd, d, wmma::mem_row_major);
      wmma::mma_sync(oacc, pa, vb_frag, oacc);
      wmma::store_matrix_sync(Os + dd, oacc, d, wmma::mem_row_major);
    }
  }
  __syncwarp();
  if (qi < s.lq) {
    const float inv = l > 0.f ? 1.f / l : 0.f;
    for (int c = half; c < d; c += 2) o[(bh * s.lq + qi) * d + c] = __float2bfloat16(Os[row * d + c] * inv);
  }
}

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (d % 16 != 0 || d > kMaxD) {
    fprintf(stderr, "attention_wmma: head size %lld is not a multiple of 16 up to %d\n", (long long)d, kMaxD);
    return;
  }
  const Shape shape{b, hq, hkv, lq, lk, d, causal, 1.f / sqrtf(float(d))};
  const dim3 grid(unsigned((lq + kRows - 1) / kRows), unsigned(b * hq));
  attention_wmma<<<grid, 32, 0, stream>>>(q, k, v, o, shape);
}
