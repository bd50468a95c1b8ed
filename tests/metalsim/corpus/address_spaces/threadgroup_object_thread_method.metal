// expect: body line 5: 'partials[simdgroup]' is in threadgroup memory, but 'Partial::add' is declared for thread objects only
// A method called on an object in threadgroup memory: `this` would point there, but the method has no threadgroup
// overload (Metal refuses the call; CUDA code written with __shared__ structs does this).
struct Partial {
  float sum;
  void add(float v) { sum += v; }
};
// --- body ---
uint i = thread_position_in_grid.x;
uint simdgroup = i / 32;
threadgroup Partial partials[8];
partials[simdgroup].sum = 0;
partials[simdgroup].add(a[i]);
o[i] = a[i];
