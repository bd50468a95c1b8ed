// Seed: one thread per element of C, a TG x TG threadgroup of them; the k-loop reads A's row and B's
// column straight from device memory (no threadgroup memory, no reuse beyond the caches).
// grid: n, m, 1
// threadgroup: TG, TG, 1
// template: TG = 16  // ksearch:knob TG = 16 in [8, 16, 32]
// --- body ---
uint col = thread_position_in_grid.x;
uint row = thread_position_in_grid.y;
auto a = A + size_t(row) * k;
float acc = 0.0f;
for (int i = 0; i < k; ++i) acc += a[i] * B[size_t(i) * n + col];
C[size_t(row) * n + col] = acc;
