// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
// attack: Two code paths, each with its own threadgroup tile (16 KiB and 31.25 KiB): a threadgroup reaches one, but
// Metal's compiler gives every threadgroup variable of a kernel its own memory (47.25 KiB > 32 KiB), so the pipeline
// cannot be created on a Mac. From /tmp/redteam2/metal_tg_memory_per_branch.metal (red-team round 2).
// expect: runtime_error
// expect-message: whether a thread reaches its declaration or not
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
float s = 0.0f;
if (cols <= 4096) {
  threadgroup float tile[4096];
  for (int c = lane; c < cols; c += 32) { tile[c] = xr[c]; m = max(m, tile[c]); }
  m = simd_max(m);
  for (int c = lane; c < cols; c += 32) s += exp(tile[c] - m);
  s = simd_sum(s);
  float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 32) yr[c] = exp(tile[c] - m) * inv;
} else {
  threadgroup float big[8000];
  int staged = min(cols, 8000);
  for (int c = lane; c < staged; c += 32) { big[c] = xr[c]; m = max(m, big[c]); }
  for (int c = staged + lane; c < cols; c += 32) m = max(m, xr[c]);
  m = simd_max(m);
  for (int c = lane; c < staged; c += 32) s += exp(big[c] - m);
  for (int c = staged + lane; c < cols; c += 32) s += exp(xr[c] - m);
  s = simd_sum(s);
  float inv = 1.0f / s;
  for (int c = lane; c < staged; c += 32) yr[c] = exp(big[c] - m) * inv;
  for (int c = staged + lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
}
