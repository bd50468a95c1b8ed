// Device reference (ksearch runs it for the workloads at or above [reference.cuda].above_flops, after
// checking it against ../attention/reference.cpp): one block per query row. Scores are fp32 dot products
// (products of bf16 values are exact in fp32); the softmax and the weighted sum of v are in double, the
// output rounded to bf16 once. Pass 1 finds the row's max score and sum of exponentials, pass 2
// recomputes the scores and accumulates p * v. Head dimension up to 1536 (the accumulators' shared memory).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kWarps = 4;

// q . key over d, every lane of the warp gets the total.
__device__ float warp_dot(const __nv_bfloat16* q, const __nv_bfloat16* key, int64_t d) {
  float s = 0;
  for (int64_t c = threadIdx.x % 32; c < d; c += 32) s += __bfloat162float(q[c]) * __bfloat162float(key[c]);
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  return s;
}

__global__ void attention_reference_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                           __nv_bfloat16* o, int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int64_t d,
                                           int causal) {
  extern __shared__ double partial_out[];  // [kWarps][d]: each warp's share of sum_j p_j v_j
  __shared__ double warp_max[kWarps], warp_sum[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t row = blockIdx.x;  // over b * hq * lq
  const int64_t i = row % lq, h = (row / lq) % hq, bi = row / (lq * hq);
  const int64_t kh = h / (hq / hkv);  // grouped-query heads share a key/value head
  const __nv_bfloat16* Q = q + row * d;
  const __nv_bfloat16* K = k + (bi * hkv + kh) * lk * d;
  const __nv_bfloat16* V = v + (bi * hkv + kh) * lk * d;
  const double scale = 1.0 / sqrt(double(d));
  const int64_t keys = causal ? i + lk - lq + 1 : lk;  // the causal mask is aligned to the last query

  // Pass 1: each warp takes every kWarps-th key and keeps a running max and sum of exp(score - max).
  double m = -INFINITY, sum = 0;
  for (int64_t j = warp; j < keys; j += kWarps) {
    const double s = double(warp_dot(Q, K + j * d, d)) * scale;
    if (s > m) {
      sum = sum * exp(m - s) + 1.0;
      m = s;
    } else {
      sum += exp(s - m);
    }
  }
  if (lane == 0) {
    warp_max[warp] = m;
    warp_sum[warp] = sum;
  }
  for (int64_t c = lane; c < d; c += 32) partial_out[warp * d + c] = 0;
  __syncthreads();
  double row_max = -INFINITY, row_sum = 0;
  for (int w = 0; w < kWarps; ++w) row_max = fmax(row_max, warp_max[w]);
  for (int w = 0; w < kWarps; ++w)
    if (warp_sum[w] > 0) row_sum += warp_sum[w] * exp(warp_max[w] - row_max);

  // Pass 2: the same scores again, weighted into this warp's share of the output.
  for (int64_t j = warp; j < keys; j += kWarps) {
    const double p = exp(double(warp_dot(Q, K + j * d, d)) * scale - row_max);
    for (int64_t c = lane; c < d; c += 32) partial_out[warp * d + c] += p * double(__bfloat162float(V[j * d + c]));
  }
  __syncthreads();
  for (int64_t c = threadIdx.x; c < d; c += blockDim.x) {
    double total = 0;
    for (int w = 0; w < kWarps; ++w) total += partial_out[w * d + c];
    o[row * d + c] = __double2bfloat16(total / row_sum);
  }
}

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o,
                          int64_t b, int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal,
                          cudaStream_t stream) {
  const int64_t rows = b * hq * lq;
  const size_t shared_bytes = size_t(kWarps) * size_t(d) * sizeof(double);
  if (rows > 0)
    attention_reference_kernel<<<unsigned(rows), kWarps * 32, shared_bytes, stream>>>(q, k, v, o, hq, hkv, lq, lk, d, causal);
}
