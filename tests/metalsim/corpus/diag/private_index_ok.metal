// Private arrays, a struct's member array, a 2D private array and a 2D threadgroup array indexed at run time,
// every index inside its array.
struct Window { float v[3]; float weight; };
threadgroup float tile[2][32];
uint i = thread_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
float acc[4];
for (uint k = 0; k < 4; ++k) acc[k] = a[(i + k) % 64];
Window w = {{acc[i % 4], acc[(i + 1) % 4], acc[(i + 2) % 4]}, 2.0f};
float grid2[2][3] = {{1, 2, 3}, {4, 5, 6}};
tile[lid / 32][lid % 32] = w.v[i % 3] * w.weight + grid2[i % 2][i % 3];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = tile[(63 - lid) / 32][(63 - lid) % 32];
