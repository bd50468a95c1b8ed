// Correct: one 128-thread threadgroup per row; max and sum reduced through threadgroup memory
// with a barrier between every write phase and read phase. Its buggy twins in this folder differ by a line or two.
// grid: 128 * rows, 1, 1
// threadgroup: 128, 1, 1
inline float reduce_max(threadgroup float* buf, uint t, float v) {
  buf[t] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = 64; stride > 0; stride /= 2) {
    if (t < stride) buf[t] = max(buf[t], buf[t + stride]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  float r = buf[0];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  return r;
}
inline float reduce_sum(threadgroup float* buf, uint t, float v) {
  buf[t] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = 64; stride > 0; stride /= 2) {
    if (t < stride) buf[t] += buf[t + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  float r = buf[0];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  return r;
}
// --- body ---
threadgroup float buf[128];
uint row = threadgroup_position_in_grid.x;
uint t = thread_index_in_threadgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = t; c < cols; c += 128) m = max(m, xr[c]);
m = reduce_max(buf, t, m);
float s = 0.0f;
for (int c = t; c < cols; c += 128) s += exp(xr[c] - m);
s = reduce_sum(buf, t, s);
for (int c = t; c < cols; c += 128) y[size_t(row) * cols + c] = exp(xr[c] - m) / s;
