// Honest (must pass): MLX's sdpa_vector layout: one SIMD group per (query, head, batch); each lane holds D_PER of
// the head's dimensions of q and of the output (d need not be a multiple of 32), a key's score is the simd_sum of
// the lanes' partial dot products, and the output accumulates with an online softmax in registers.
// grid: 32 * lq, hq, b
// threadgroup: 32, 1, 1
// template: D_PER = ceil(d / 32)
// --- body ---
uint query = threadgroup_position_in_grid.x;
uint head = threadgroup_position_in_grid.y;
uint batch = threadgroup_position_in_grid.z;
ushort lane = thread_index_in_simdgroup;
uint kv_head = head / (hq / hkv);
const device float* qr = q + ((size_t(batch) * hq + head) * lq + query) * d;
const device float* kb = k + (size_t(batch) * hkv + kv_head) * size_t(lk) * d;
const device float* vb = v + (size_t(batch) * hkv + kv_head) * size_t(lk) * d;
const float scale = rsqrt(float(d));

float q_part[D_PER], out[D_PER];
for (int i = 0; i < D_PER; ++i) {
  int dim = lane + 32 * i;
  q_part[i] = dim < d ? qr[dim] * scale : 0.0f;
  out[i] = 0.0f;
}
int last_key = causal ? min(lk - 1, int(query) + lk - lq) : lk - 1;
float max_score = -INFINITY, sum_exp = 0.0f;
for (int j = 0; j <= last_key; ++j) {
  const device float* kr = kb + size_t(j) * d;
  float partial = 0.0f;
  for (int i = 0; i < D_PER; ++i) {
    int dim = lane + 32 * i;
    if (dim < d) partial += q_part[i] * kr[dim];
  }
  float score = simd_sum(partial);
  float new_max = max(max_score, score);
  float rescale = exp(max_score - new_max);
  float weight = exp(score - new_max);
  sum_exp = sum_exp * rescale + weight;
  const device float* vr = vb + size_t(j) * d;
  for (int i = 0; i < D_PER; ++i) {
    int dim = lane + 32 * i;
    out[i] = out[i] * rescale + (dim < d ? weight * vr[dim] : 0.0f);
  }
  max_score = new_max;
}
device float* orow = o + ((size_t(batch) * hq + head) * lq + query) * d;
const float inv = 1.0f / sum_exp;
for (int i = 0; i < D_PER; ++i) {
  int dim = lane + 32 * i;
  if (dim < d) orow[dim] = out[i] * inv;
}
