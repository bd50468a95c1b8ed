// Honest (must pass): a 2-D grid (columns by lanes, rows in y) with partial threadgroups in y, `uint3` positions,
// x addressed through MLX's elem_to_loc with x_shape/x_strides/x_ndim and weight through weight_strides; the sum
// of squares reduced first within quads (quad_sum, thread_index_in_quadgroup) and then across them.
// grid: 32, rows, 1
// threadgroup: 32, 4, 1
// --- body ---
uint3 pos = thread_position_in_grid;
uint3 lpos = thread_position_in_threadgroup;
uint row = pos.y;
if (row >= uint(x_shape[0])) return;
uint n = x_shape[x_ndim - 1];
float ss = 0.0f;
for (uint c = lpos.x; c < n; c += 32) {
  float v = x[elem_to_loc(row * n + c, x_shape, x_strides, x_ndim)];
  ss = fma(v, v, ss);
}
float quad_total = quad_sum(ss);
float total = simd_sum(thread_index_in_quadgroup == 0 ? quad_total : 0.0f);
float scale = metal::precise::rsqrt(total / float(n) + eps);
for (uint c = lpos.x; c < n; c += 32) {
  float v = x[elem_to_loc(row * n + c, x_shape, x_strides, x_ndim)];
  y[size_t(row) * n + c] = v * scale * weight[c * weight_strides[0]];
}
