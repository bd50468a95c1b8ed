// Honest (must pass): one SIMD group per row, float4 loads where the row is 16-byte aligned, scalar tail.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
bool aligned = (cols % 4) == 0;
int vec_end = aligned ? cols : 0;
float m = -INFINITY;
for (int c = lane * 4; c < vec_end; c += 128) {
  float4 v = *(const device float4*)(xr + c);
  m = max(m, max(max(v.x, v.y), max(v.z, v.w)));
}
for (int c = vec_end + lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane * 4; c < vec_end; c += 128) {
  float4 v = *(const device float4*)(xr + c);
  float4 e = exp(v - m);
  s += e.x + e.y + e.z + e.w;
}
for (int c = vec_end + lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane * 4; c < vec_end; c += 128) {
  float4 v = *(const device float4*)(xr + c);
  *(device float4*)(yr + c) = exp(v - m) * inv;
}
for (int c = vec_end + lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
