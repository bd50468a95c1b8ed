// Honest (must pass): bf16 attention, one SIMD group per (query, head, batch): each lane loads 4 contiguous
// dimensions as a bfloat4; q.k in float (its rounding would move the softmax weights), the weight rounded to bfloat
// and p * v formed in bfloat (bfloat intermediate math), summed in float; online softmax in registers, the output
// rounded to bfloat once.
// grid: 32 * lq, hq, b
// threadgroup: 32, 1, 1
// template: D_PER = ceil(d / 128)
METAL_FUNC float4 load4(const device bfloat* p) {
  bfloat4 v = *((device const bfloat4*)p);
  return float4(v);
}
// --- body ---
uint query = threadgroup_position_in_grid.x;
uint head = threadgroup_position_in_grid.y;
uint batch = threadgroup_position_in_grid.z;
ushort lane = thread_index_in_simdgroup;
uint kv_head = head / (hq / hkv);
const device bfloat* qr = q + ((size_t(batch) * hq + head) * lq + query) * d;
const device bfloat* kb = k + (size_t(batch) * hkv + kv_head) * size_t(lk) * d;
const device bfloat* vb = v + (size_t(batch) * hkv + kv_head) * size_t(lk) * d;
const float scale = rsqrt(float(d));

// Lane `lane` owns dimensions 4 * (lane + 32 * i) .. + 3 (d is a multiple of 4).
float4 q_part[D_PER];
float4 out[D_PER];
for (int i = 0; i < D_PER; ++i) {
  int dim = 4 * (lane + 32 * i);
  q_part[i] = dim < d ? load4(qr + dim) * scale : float4(0.0f);
  out[i] = float4(0.0f);
}
int last_key = causal ? min(lk - 1, int(query) + lk - lq) : lk - 1;
float max_score = -INFINITY, sum_exp = 0.0f;
for (int j = 0; j <= last_key; ++j) {
  float partial = 0.0f;
  for (int i = 0; i < D_PER; ++i) {
    int dim = 4 * (lane + 32 * i);
    if (dim < d) {
      partial += dot(q_part[i], load4(kb + size_t(j) * d + dim));
    }
  }
  float score = simd_sum(partial);
  float new_max = max(max_score, score);
  float rescale = exp(max_score - new_max);
  float weight = exp(score - new_max);
  sum_exp = sum_exp * rescale + weight;
  bfloat w = bfloat(weight);
  for (int i = 0; i < D_PER; ++i) {
    int dim = 4 * (lane + 32 * i);
    float4 pv = dim < d ? float4(bfloat4(*((device const bfloat4*)(vb + size_t(j) * d + dim))) * w) : float4(0.0f);
    out[i] = out[i] * rescale + pv;
  }
  max_score = new_max;
}
device bfloat* orow = o + ((size_t(batch) * hq + head) * lq + query) * d;
const float inv = 1.0f / sum_exp;
for (int i = 0; i < D_PER; ++i) {
  int dim = 4 * (lane + 32 * i);
  if (dim < d) *((device bfloat4*)(orow + dim)) = bfloat4(out[i] * inv);
}
