// FlashAttention-2 style forward: a Flash_fwd_params struct with __restrict__ pointers and strides, a
// Kernel_traits template of static constexpr tile sizes, Q/K/V tiles carved from extern __shared__
// char, FA2's recursive Allreduce<THREADS> template with its Allreduce<2> specialization and functor
// ops, online softmax per row, exp2f with log2(e) scaling, GQA and the causal limit.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

struct Flash_fwd_params {
  const float* __restrict__ q_ptr;
  const float* __restrict__ k_ptr;
  const float* __restrict__ v_ptr;
  float* __restrict__ o_ptr;
  int64_t q_batch_stride, q_head_stride, q_row_stride;
  int64_t k_batch_stride, k_head_stride, k_row_stride;
  int h, h_k, seqlen_q, seqlen_k, d;
  int h_h_k_ratio;
  float scale_softmax_log2;
  bool is_causal;
};

template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_>
struct Flash_fwd_kernel_traits {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kNWarps = kNWarps_;
  static constexpr int kNThreads = kNWarps * 32;
  static constexpr int kRowsPerWarp = kBlockM / kNWarps;
  static constexpr int kColsPerLane = kHeadDim / 32;
  static constexpr int kSmemSize = (kBlockM + 2 * kBlockN) * kHeadDim * int(sizeof(float));
};

template <typename T>
struct MaxOp {
  __device__ __forceinline__ T operator()(T const& x, T const& y) { return x > y ? x : y; }
};

template <typename T>
struct SumOp {
  __device__ __forceinline__ T operator()(T const& x, T const& y) { return x + y; }
};

template <int THREADS>
struct Allreduce {
  static_assert(THREADS == 32 || THREADS == 16 || THREADS == 8 || THREADS == 4);
  template <typename T, typename Operator>
  static __device__ __forceinline__ T run(T x, Operator& op) {
    constexpr int OFFSET = THREADS / 2;
    x = op(x, __shfl_xor_sync(uint32_t(-1), x, OFFSET));
    return Allreduce<OFFSET>::run(x, op);
  }
};

template <>
struct Allreduce<2> {
  template <typename T, typename Operator>
  static __device__ __forceinline__ T run(T x, Operator& op) {
    x = op(x, __shfl_xor_sync(uint32_t(-1), x, 1));
    return x;
  }
};

template <typename Kernel_traits, bool Is_causal>
__global__ void flash_fwd_kernel(const Flash_fwd_params params) {
  constexpr int kBlockM = Kernel_traits::kBlockM;
  constexpr int kBlockN = Kernel_traits::kBlockN;
  constexpr int kHeadDim = Kernel_traits::kHeadDim;
  constexpr int kRows = Kernel_traits::kRowsPerWarp;
  constexpr int kCols = Kernel_traits::kColsPerLane;
  extern __shared__ char smem_[];
  float* sQ = reinterpret_cast<float*>(smem_);
  float* sK = sQ + kBlockM * kHeadDim;
  float* sV = sK + kBlockN * kHeadDim;

  const int m_block = blockIdx.x, bidh = blockIdx.y, bidb = blockIdx.z;
  const int tidx = threadIdx.x, warp = tidx / 32, lane = tidx % 32;
  const int d = params.d;
  const float* q = params.q_ptr + bidb * params.q_batch_stride + bidh * params.q_head_stride;
  const int bidh_k = bidh / params.h_h_k_ratio;
  const float* k = params.k_ptr + bidb * params.k_batch_stride + bidh_k * params.k_head_stride;
  const float* v = params.v_ptr + bidb * params.k_batch_stride + bidh_k * params.k_head_stride;
  float* o = params.o_ptr + bidb * params.q_batch_stride + bidh * params.q_head_stride;

  for (int i = tidx; i < kBlockM * kHeadDim; i += Kernel_traits::kNThreads) {
    const int r = m_block * kBlockM + i / kHeadDim, c = i % kHeadDim;
    sQ[i] = (r < params.seqlen_q && c < d) ? q[r * params.q_row_stride + c] : 0.f;
  }

  float row_max[kRows], row_sum[kRows], acc_o[kRows][kCols];
#pragma unroll
  for (int mi = 0; mi < kRows; ++mi) {
    row_max[mi] = -INFINITY;
    row_sum[mi] = 0.f;
#pragma unroll
    for (int ni = 0; ni < kCols; ++ni) acc_o[mi][ni] = 0.f;
  }
  MaxOp<float> max_op;
  SumOp<float> sum_op;

  const int diag = params.seqlen_k - params.seqlen_q;
  const int n_block_max = !Is_causal ? params.seqlen_k
                                     : min(params.seqlen_k, (m_block + 1) * kBlockM + diag);
  for (int n_start = 0; n_start < n_block_max; n_start += kBlockN) {
    __syncthreads();
    for (int i = tidx; i < kBlockN * kHeadDim; i += Kernel_traits::kNThreads) {
      const int r = n_start + i / kHeadDim, c = i % kHeadDim;
      const bool ok = r < params.seqlen_k && c < d;
      sK[i] = ok ? k[r * params.k_row_stride + c] : 0.f;
      sV[i] = ok ? v[r * params.k_row_stride + c] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int mi = 0; mi < kRows; ++mi) {
      const int row = warp * kRows + mi;
      const int qi = m_block * kBlockM + row;
      const int key = n_start + lane;
      float s = 0.f;
#pragma unroll 8
      for (int c = 0; c < kHeadDim; ++c) s += sQ[row * kHeadDim + c] * sK[lane * kHeadDim + c];
      const bool masked = key >= params.seqlen_k || (Is_causal && key > qi + diag);
      s = masked ? -INFINITY : s * params.scale_softmax_log2;
      const float m_prev = row_max[mi];
      const float m_new = max_op(m_prev, Allreduce<32>::run(s, max_op));
      row_max[mi] = m_new;
      const float m_scaled = m_new == -INFINITY ? 0.f : m_new;
      const float rescale = exp2f(m_prev - m_scaled);
      const float p = exp2f(s - m_scaled);
      row_sum[mi] = row_sum[mi] * rescale + Allreduce<32>::run(p, sum_op);
#pragma unroll
      for (int ni = 0; ni < kCols; ++ni) acc_o[mi][ni] *= rescale;
      for (int j = 0; j < kBlockN; ++j) {
        const float pj = __shfl_sync(0xffffffff, p, j);
#pragma unroll
        for (int ni = 0; ni < kCols; ++ni) acc_o[mi][ni] += pj * sV[j * kHeadDim + lane + ni * 32];
      }
    }
  }
#pragma unroll
  for (int mi = 0; mi < kRows; ++mi) {
    const int qi = m_block * kBlockM + warp * kRows + mi;
    if (qi >= params.seqlen_q) continue;
    const float inv = row_sum[mi] > 0.f ? 1.f / row_sum[mi] : 0.f;
#pragma unroll
    for (int ni = 0; ni < kCols; ++ni) {
      const int c = lane + ni * 32;
      if (c < d) o[qi * params.q_row_stride + c] = acc_o[mi][ni] * inv;
    }
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  using Traits = Flash_fwd_kernel_traits<64, 16, 32, 4>;
  Flash_fwd_params params;
  params.q_ptr = q;
  params.k_ptr = k;
  params.v_ptr = v;
  params.o_ptr = o;
  params.q_row_stride = d;
  params.q_head_stride = lq * d;
  params.q_batch_stride = hq * lq * d;
  params.k_row_stride = d;
  params.k_head_stride = lk * d;
  params.k_batch_stride = hkv * lk * d;
  params.h = (int)hq;
  params.h_k = (int)hkv;
  params.seqlen_q = (int)lq;
  params.seqlen_k = (int)lk;
  params.d = (int)d;
  params.h_h_k_ratio = (int)(hq / hkv);
  params.scale_softmax_log2 = (1.0f / sqrtf((float)d)) * (float)M_LOG2E;
  params.is_causal = causal != 0;
  const int smem_size = Traits::kSmemSize;
  dim3 grid((lq + Traits::kBlockM - 1) / Traits::kBlockM, hq, b);
  if (causal) {
    flash_fwd_kernel<Traits, true><<<grid, Traits::kNThreads, smem_size, stream>>>(params);
  } else {
    flash_fwd_kernel<Traits, false><<<grid, Traits::kNThreads, smem_size, stream>>>(params);
  }
}
