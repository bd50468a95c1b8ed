// Honest (must pass): one SIMD group per (query, head, batch), the keys split across the lanes (lane j takes keys
// j, j + 32, ...): q is staged in threadgroup memory, each lane keeps its own online softmax (max, sum) and output
// row in registers (template D = d), and the lanes' partial results are merged at the end: the maximum with
// simd_max, each rescaled sum and output element with simd_sum (a lane that got no key contributes zero).
// grid: 32 * lq, hq, b
// threadgroup: 32, 1, 1
// template: D = d
// --- body ---
threadgroup float q_shared[D];
uint query = threadgroup_position_in_grid.x;
uint head = threadgroup_position_in_grid.y;
uint batch = threadgroup_position_in_grid.z;
ushort lane = thread_index_in_simdgroup;
uint kv_head = head / (hq / hkv);
const device float* qr = q + ((size_t(batch) * hq + head) * lq + query) * D;
const device float* kb = k + (size_t(batch) * hkv + kv_head) * size_t(lk) * D;
const device float* vb = v + (size_t(batch) * hkv + kv_head) * size_t(lk) * D;
const float scale = rsqrt(float(D));
for (int i = lane; i < D; i += 32) q_shared[i] = qr[i] * scale;
threadgroup_barrier(mem_flags::mem_threadgroup);

float out[D];
for (int i = 0; i < D; ++i) out[i] = 0.0f;
int last_key = causal ? min(lk - 1, int(query) + lk - lq) : lk - 1;
float max_score = -INFINITY, sum_exp = 0.0f;
for (int j = lane; j <= last_key; j += 32) {
  const device float* kr = kb + size_t(j) * D;
  float score = 0.0f;
  for (int i = 0; i < D; ++i) score = fma(q_shared[i], kr[i], score);
  float new_max = max(max_score, score);
  float rescale = exp(max_score - new_max);
  float weight = exp(score - new_max);
  sum_exp = sum_exp * rescale + weight;
  const device float* vr = vb + size_t(j) * D;
  for (int i = 0; i < D; ++i) out[i] = fma(out[i], rescale, weight * vr[i]);
  max_score = new_max;
}
const float group_max = simd_max(max_score);
const float factor = exp(max_score - group_max);  // 0 for a lane without keys (-inf)
const float inv = 1.0f / simd_sum(sum_exp * factor);
device float* orow = o + ((size_t(batch) * hq + head) * lq + query) * D;
for (int i = 0; i < D; ++i) {
  float total = simd_sum(out[i] * factor);
  if (lane == i % 32) orow[i] = total * inv;
}
