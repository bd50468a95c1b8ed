// Flash attention (online softmax) with simdgroup_matrix: one SIMD group per
// 8 query rows of one head; keys and values in blocks of 8. Rescaling of the
// output accumulators is a multiply by a diagonal matrix.
threadgroup float S[64];
threadgroup float P[64];
threadgroup float Dg[64];
threadgroup float m_row[8];
threadgroup float l_row[8];
uint lane = thread_index_in_simdgroup;
uint qb = threadgroup_position_in_grid.x * 8;
uint h = threadgroup_position_in_grid.y;
const device float* q = Q + (h * L + qb) * D;
const device float* k = K + h * L * D;
const device float* v = V + h * L * D;
simdgroup_matrix<float, 8, 8> qm[D / 8];
simdgroup_matrix<float, 8, 8> o[D / 8];
for (int d = 0; d < D / 8; ++d) {
  simdgroup_load(qm[d], q, D, ulong2(d * 8, 0));
  o[d] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
}
if (lane < 8) {
  m_row[lane] = -INFINITY;
  l_row[lane] = 0.0f;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
for (uint kb = 0; kb < L; kb += 8) {
  simdgroup_matrix<float, 8, 8> s = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  for (int d = 0; d < D / 8; ++d) {
    simdgroup_matrix<float, 8, 8> kt;
    simdgroup_load(kt, k, D, ulong2(d * 8, kb), true);
    simdgroup_multiply_accumulate(s, qm[d], kt, s);
  }
  simdgroup_store(s, S, 8);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lane < 8) {
    float m_old = m_row[lane];
    float mx = m_old;
    for (int j = 0; j < 8; ++j) mx = max(mx, S[lane * 8 + j] * scale);
    float alpha = exp(m_old - mx);
    float sum = 0.0f;
    for (int j = 0; j < 8; ++j) {
      float p = exp(S[lane * 8 + j] * scale - mx);
      P[lane * 8 + j] = p;
      sum += p;
    }
    l_row[lane] = l_row[lane] * alpha + sum;
    m_row[lane] = mx;
    for (uint j = 0; j < 8; ++j) Dg[lane * 8 + j] = j == lane ? alpha : 0.0f;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_matrix<float, 8, 8> pm;
  simdgroup_matrix<float, 8, 8> dm;
  simdgroup_load(pm, P, 8);
  simdgroup_load(dm, Dg, 8);
  for (int d = 0; d < D / 8; ++d) {
    simdgroup_matrix<float, 8, 8> vm;
    simdgroup_load(vm, v, D, ulong2(d * 8, kb));
    simdgroup_multiply(o[d], dm, o[d]);
    simdgroup_multiply_accumulate(o[d], pm, vm, o[d]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
if (lane < 8) {
  for (uint j = 0; j < 8; ++j) Dg[lane * 8 + j] = j == lane ? 1.0f / l_row[lane] : 0.0f;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
simdgroup_matrix<float, 8, 8> inv;
simdgroup_load(inv, Dg, 8);
for (int d = 0; d < D / 8; ++d) {
  simdgroup_multiply(o[d], inv, o[d]);
  simdgroup_store(o[d], out + (h * L + qb) * D, D, ulong2(d * 8, 0));
}
