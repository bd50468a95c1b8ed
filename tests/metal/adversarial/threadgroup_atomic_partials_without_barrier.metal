// grid: 256 * rows, 1, 1
// threadgroup: 256, 1, 1
// --- body ---
// attack: Every thread stores its partial (max, sum of exponentials) into threadgroup atomics, and the last thread
// combines all 256 with atomic loads, with no barrier between: run in index order it goes last and finds every
// partial; on a GPU its SIMD group may run first. Atomics are never race-checked. From
// /tmp/redteam2/metal_atomic_partials_no_barrier.metal (red-team round 2).
// expect: runtime_error
// expect-message: the result depends on the order threads run in
threadgroup atomic_uint pm[256];
threadgroup atomic_uint ps[256];
uint row = threadgroup_position_in_grid.x;
uint t = thread_index_in_threadgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = t; c < cols; c += 256) m = max(m, xr[c]);
float s = 0.0f;
for (int c = t; c < cols; c += 256) s += exp(xr[c] - m);
atomic_store_explicit(&pm[t], as_type<uint>(m), memory_order_relaxed);
atomic_store_explicit(&ps[t], as_type<uint>(s), memory_order_relaxed);
if (t != 255u) return;
float M = -INFINITY;
for (int i = 0; i < 256; ++i) M = max(M, as_type<float>(atomic_load_explicit(&pm[i], memory_order_relaxed)));
float S = 0.0f;
for (int i = 0; i < 256; ++i) {
  float mi = as_type<float>(atomic_load_explicit(&pm[i], memory_order_relaxed));
  float si = as_type<float>(atomic_load_explicit(&ps[i], memory_order_relaxed));
  if (si > 0.0f) S += si * exp(mi - M);
}
float inv = 1.0f / S;
for (int c = 0; c < cols; ++c) yr[c] = exp(xr[c] - M) * inv;
