// vLLM paged_attention_v1 style (without the paging: the cache's blocks in order): template <int
// HEAD_SIZE, int BLOCK_SIZE, int NUM_THREADS>, THREAD_GROUP_SIZE = max(WARP_SIZE / BLOCK_SIZE, 1)
// threads sharing one key's dot product, the query as float4 vectors in __shared__
// q_vecs[THREAD_GROUP_SIZE][NUM_VECS_PER_THREAD], a Qk_dot-like helper finishing with __shfl_xor_sync
// inside the group, logits in `extern __shared__ char shared_mem[]`, red_smem for the block max and
// a block_sum<NUM_WARPS> helper, __expf / __fdividef, the value rows accumulated per warp in
// registers (NUM_ROWS_PER_THREAD) and summed over warps through shared memory; the head size
// dispatched from the runtime d by a switch (32, 48, 64) as vLLM's LAUNCH_PAGED_ATTENTION_V1 macro.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <algorithm>

#define WARP_SIZE 32
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define DIVIDE_ROUND_UP(a, b) (((a) + (b)-1) / (b))

namespace vllm {

template <int THREAD_GROUP_SIZE, int N>
inline __device__ float qk_dot_(const float4 (&q)[N], const float4 (&k)[N]) {
  float qk = 0.f;
#pragma unroll
  for (int ii = 0; ii < N; ++ii) qk += q[ii].x * k[ii].x + q[ii].y * k[ii].y + q[ii].z * k[ii].z + q[ii].w * k[ii].w;
#pragma unroll
  for (int mask = THREAD_GROUP_SIZE / 2; mask >= 1; mask /= 2) qk += __shfl_xor_sync(uint32_t(-1), qk, mask);
  return qk;
}

template <int NUM_WARPS>
inline __device__ float block_sum(float* red_smem, float sum) {
  const int warp = threadIdx.x / WARP_SIZE;
  const int lane = threadIdx.x % WARP_SIZE;
#pragma unroll
  for (int mask = WARP_SIZE / 2; mask >= 1; mask /= 2) sum += __shfl_xor_sync(uint32_t(-1), sum, mask);
  if (lane == 0) red_smem[warp] = sum;
  __syncthreads();
  if (lane < NUM_WARPS) sum = red_smem[lane];
#pragma unroll
  for (int mask = NUM_WARPS / 2; mask >= 1; mask /= 2) sum += __shfl_xor_sync(uint32_t(-1), sum, mask);
  return __shfl_sync(uint32_t(-1), sum, 0);
}

template <int HEAD_SIZE, int BLOCK_SIZE, int NUM_THREADS>
__global__ void paged_attention_v1_kernel(float* __restrict__ out, const float* __restrict__ q,
                                          const float* __restrict__ k_cache, const float* __restrict__ v_cache,
                                          const int num_heads, const int num_kv_heads, const int q_len,
                                          const int seq_len, const int causal, const float scale) {
  const int head_idx = blockIdx.x;
  const int q_idx = blockIdx.y;
  const int batch_idx = blockIdx.z;
  const int num_queries_per_kv = num_heads / num_kv_heads;
  const int kv_head_idx = head_idx / num_queries_per_kv;
  const int num_keys = causal ? q_idx + seq_len - q_len + 1 : seq_len;

  constexpr int THREAD_GROUP_SIZE = MAX(WARP_SIZE / BLOCK_SIZE, 1);
  constexpr int NUM_THREAD_GROUPS = NUM_THREADS / THREAD_GROUP_SIZE;
  constexpr int NUM_WARPS = NUM_THREADS / WARP_SIZE;
  constexpr int VEC_SIZE = 4;  // float4
  constexpr int NUM_ELEMS_PER_THREAD = HEAD_SIZE / THREAD_GROUP_SIZE;
  constexpr int NUM_VECS_PER_THREAD = NUM_ELEMS_PER_THREAD / VEC_SIZE;
  static_assert(NUM_VECS_PER_THREAD * VEC_SIZE * THREAD_GROUP_SIZE == HEAD_SIZE, "head size");

  const int thread_idx = threadIdx.x;
  const int warp_idx = thread_idx / WARP_SIZE;
  const int lane = thread_idx % WARP_SIZE;
  const int thread_group_idx = thread_idx / THREAD_GROUP_SIZE;
  const int thread_group_offset = thread_idx % THREAD_GROUP_SIZE;

  const int64_t q_row = ((int64_t)batch_idx * num_heads + head_idx) * q_len + q_idx;
  const float* q_ptr = q + q_row * HEAD_SIZE;
  __shared__ float4 q_vecs[THREAD_GROUP_SIZE][NUM_VECS_PER_THREAD];
#pragma unroll
  for (int i = thread_group_idx; i < NUM_VECS_PER_THREAD; i += NUM_THREAD_GROUPS) {
    const int vec_idx = thread_group_offset + i * THREAD_GROUP_SIZE;
    q_vecs[thread_group_offset][i] = *reinterpret_cast<const float4*>(q_ptr + vec_idx * VEC_SIZE);
  }
  __syncthreads();

  extern __shared__ char shared_mem[];
  float* logits = reinterpret_cast<float*>(shared_mem);
  __shared__ float red_smem[2 * NUM_WARPS];

  const int64_t kv_base = ((int64_t)batch_idx * num_kv_heads + kv_head_idx) * seq_len * HEAD_SIZE;
  float qk_max = -FLT_MAX;
  // every thread runs the same number of passes (the shuffles in qk_dot_ name the whole warp), as vLLM's loop over
  // whole cache blocks does; a key past the end is read from row 0 and masked, as vLLM masks past seq_len
  const int num_passes = DIVIDE_ROUND_UP(num_keys, NUM_THREAD_GROUPS);
  for (int pass = 0; pass < num_passes; ++pass) {
    const int token_idx = pass * NUM_THREAD_GROUPS + thread_group_idx;
    const bool mask = token_idx >= num_keys;
    const float* k_ptr = k_cache + kv_base + (int64_t)(mask ? 0 : token_idx) * HEAD_SIZE;
    float4 k_vecs[NUM_VECS_PER_THREAD];
#pragma unroll
    for (int j = 0; j < NUM_VECS_PER_THREAD; j++) {
      const int vec_idx = thread_group_offset + j * THREAD_GROUP_SIZE;
      k_vecs[j] = *reinterpret_cast<const float4*>(k_ptr + vec_idx * VEC_SIZE);
    }
    const float qk = scale * qk_dot_<THREAD_GROUP_SIZE>(q_vecs[thread_group_offset], k_vecs);
    if (thread_group_offset == 0 && !mask) {
      logits[token_idx] = qk;
      qk_max = fmaxf(qk_max, qk);
    }
  }

#pragma unroll
  for (int mask = WARP_SIZE / 2; mask >= THREAD_GROUP_SIZE; mask /= 2) {
    qk_max = fmaxf(qk_max, __shfl_xor_sync(uint32_t(-1), qk_max, mask));
  }
  if (lane == 0) red_smem[warp_idx] = qk_max;
  __syncthreads();
  qk_max = lane < NUM_WARPS ? red_smem[lane] : -FLT_MAX;
#pragma unroll
  for (int mask = NUM_WARPS / 2; mask >= 1; mask /= 2) qk_max = fmaxf(qk_max, __shfl_xor_sync(uint32_t(-1), qk_max, mask));
  qk_max = __shfl_sync(uint32_t(-1), qk_max, 0);

  float exp_sum = 0.f;
  for (int i = thread_idx; i < num_keys; i += NUM_THREADS) {
    const float val = __expf(logits[i] - qk_max);
    logits[i] = val;
    exp_sum += val;
  }
  exp_sum = block_sum<NUM_WARPS>(&red_smem[NUM_WARPS], exp_sum);
  const float inv_sum = __fdividef(1.f, exp_sum);
  for (int i = thread_idx; i < num_keys; i += NUM_THREADS) logits[i] *= inv_sum;
  __syncthreads();

  // each warp sums a strided subset of the value rows, each lane NUM_ROWS_PER_THREAD head elements
  constexpr int NUM_ROWS_PER_THREAD = DIVIDE_ROUND_UP(HEAD_SIZE, WARP_SIZE);
  float accs[NUM_ROWS_PER_THREAD];
#pragma unroll
  for (int i = 0; i < NUM_ROWS_PER_THREAD; i++) accs[i] = 0.f;
  for (int token_idx = warp_idx; token_idx < num_keys; token_idx += NUM_WARPS) {
    const float* v_ptr = v_cache + kv_base + (int64_t)token_idx * HEAD_SIZE;
    const float p = logits[token_idx];
#pragma unroll
    for (int i = 0; i < NUM_ROWS_PER_THREAD; i++) {
      const int row_idx = lane + i * WARP_SIZE;
      if (row_idx < HEAD_SIZE) accs[i] += p * __ldg(v_ptr + row_idx);
    }
  }

  __shared__ float out_smem[NUM_WARPS][HEAD_SIZE];
#pragma unroll
  for (int i = 0; i < NUM_ROWS_PER_THREAD; i++) {
    const int row_idx = lane + i * WARP_SIZE;
    if (row_idx < HEAD_SIZE) out_smem[warp_idx][row_idx] = accs[i];
  }
  __syncthreads();
  float* out_ptr = out + q_row * HEAD_SIZE;
  for (int row_idx = thread_idx; row_idx < HEAD_SIZE; row_idx += NUM_THREADS) {
    float acc = 0.f;
#pragma unroll
    for (int w = 0; w < NUM_WARPS; ++w) acc += out_smem[w][row_idx];
    out_ptr[row_idx] = acc;
  }
}

}  // namespace vllm

#define LAUNCH_PAGED_ATTENTION_V1(HEAD_SIZE)                                                                \
  vllm::paged_attention_v1_kernel<HEAD_SIZE, BLOCK_SIZE, NUM_THREADS>                                      \
      <<<grid, block, shared_mem_size, stream>>>(o, q, k, v, num_heads, num_kv_heads, q_len, seq_len, causal, \
                                                 scale);

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  constexpr int BLOCK_SIZE = 16;
  constexpr int NUM_THREADS = 128;
  const int num_heads = (int)hq, num_kv_heads = (int)hkv, q_len = (int)lq, seq_len = (int)lk;
  const float scale = 1.0f / sqrtf((float)d);
  const int padded_max_seq_len = DIVIDE_ROUND_UP(seq_len, BLOCK_SIZE) * BLOCK_SIZE;
  const int shared_mem_size = padded_max_seq_len * (int)sizeof(float);
  dim3 grid(num_heads, q_len, (unsigned)b);
  dim3 block(NUM_THREADS);
  switch (d) {
    case 32:
      LAUNCH_PAGED_ATTENTION_V1(32);
      break;
    case 48:
      LAUNCH_PAGED_ATTENTION_V1(48);
      break;
    case 64:
      LAUNCH_PAGED_ATTENTION_V1(64);
      break;
    default:
      break;
  }
}
