// Seed: one thread per (query, head, batch) walks its keys in order with an online softmax: a running
// max and sum of exp, the output row (D = d floats) rescaled whenever the max grows. Query head h reads
// key/value head h / (hq / hkv); with causal, query i sees keys j <= i + lk - lq.
// grid: lq, hq, b
// threadgroup: TG, 1, 1
// template: D = d
// template: TG = 32  // ksearch:knob TG = 32 in [32, 64, 128]
// --- body ---
uint i = thread_position_in_grid.x;
uint h = thread_position_in_grid.y;
uint bi = thread_position_in_grid.z;
uint kv = h / (hq / hkv);
auto qr = q + ((size_t(bi) * hq + h) * lq + i) * D;
auto kb = k + (size_t(bi) * hkv + kv) * lk * D;
auto vb = v + (size_t(bi) * hkv + kv) * lk * D;
const int last = causal ? int(i) + lk - lq : lk - 1;
const float scale = 1.0f / sqrt(float(D));

float qs[D], acc[D];
for (int c = 0; c < D; ++c) {
  qs[c] = qr[c] * scale;
  acc[c] = 0.0f;
}
float m = -INFINITY, sum = 0.0f;
for (int j = 0; j <= last; ++j) {
  float s = 0.0f;
  for (int c = 0; c < D; ++c) s += qs[c] * kb[size_t(j) * D + c];
  const float m_new = max(m, s);
  const float correction = exp(m - m_new), p = exp(s - m_new);
  sum = sum * correction + p;
  for (int c = 0; c < D; ++c) acc[c] = acc[c] * correction + p * vb[size_t(j) * D + c];
  m = m_new;
}
device float* orow = o + ((size_t(bi) * hq + h) * lq + i) * D;
for (int c = 0; c < D; ++c) orow[c] = acc[c] / sum;
