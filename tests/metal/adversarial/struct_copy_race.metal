// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
struct Block { float v[128]; };
// --- body ---
// attack: Threadgroup 0 writes rows in 512-byte struct stores, and the other threadgroups read row 0 with a struct
// copy: a race between threadgroups that only memcpy calls (left unchecked by the instrumentation) carried.
// expect: runtime_error
// expect-message: data race on device buffer 'y'
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
if (row == 0 && lane == 0) {
  for (int r = 0; r < rows; ++r) {
    const device float* xr = x + size_t(r) * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = max(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += exp(xr[c] - m);
    for (int c0 = 0; c0 < cols; c0 += 128) {
      Block b;
      int n = min(128, cols - c0);
      for (int c = 0; c < n; ++c) b.v[c] = exp(xr[c0 + c] - m) / s;
      if (n == 128) *(device Block*)(y + size_t(r) * cols + c0) = b;
      else for (int c = 0; c < n; ++c) y[size_t(r) * cols + c0 + c] = b.v[c];
    }
  }
}
if (row != 0 && lane == 0) {
  Block first = *(const device Block*)(y);
  if (first.v[0] == 12345.0f) y[size_t(row) * cols] = 0;
}
