// Honest (must pass): split-K with atomic outputs: a 3-D grid (n, m, SPLITS), each thread sums one slice of k and
// adds it to C with atomic_fetch_add_explicit; C starts at init_value 0 (atomic_outputs makes it atomic<float>).
// grid: n, m, SPLITS
// threadgroup: 32, 8, 1
// template: SPLITS = 4
// atomic_outputs: true
// init_value: 0
// --- body ---
uint3 gid = thread_position_in_grid;
if (gid.x >= uint(n) || gid.y >= uint(m)) return;
int chunk = (k + SPLITS - 1) / SPLITS;
int k_begin = int(gid.z) * chunk, k_end = min(k_begin + chunk, k);
if (k_begin >= k_end) return;
const device float* a_row = A + size_t(gid.y) * k;
float partial = 0.0f;
for (int i = k_begin; i < k_end; ++i) partial = fma(a_row[i], B[size_t(i) * n + gid.x], partial);
atomic_fetch_add_explicit(&C[size_t(gid.y) * n + gid.x], partial, memory_order_relaxed);
