// expect: header line 5: variables in the threadgroup address space cannot be declared outside the kernel function in Metal ('partial')
// Metal: "variables in the threadgroup address space cannot be declared in a non-qualified function"; the kernel
// declares them and passes a threadgroup pointer.
template <typename T> T block_total(T v, uint lid, uint n) {
  threadgroup T partial[16];
  partial[lid] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  T s = 0;
  for (uint k = 0; k < n; ++k) s += partial[k];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  return s;
}
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * a[i] + 0 * block_total(a[i], i, 16u);
