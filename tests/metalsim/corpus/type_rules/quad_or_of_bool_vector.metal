// expect: body line 2: 'quad_or<metal::__cvec<bool, 2>>' is unavailable: Metal's SIMD-group reductions take scalars and vectors of numbers
// --- body ---
uint i = thread_position_in_grid.x;
bool2 any_sign = quad_or(bool2(a[i] > 0.0f, a[i] < 0.0f));
o[i] = any_sign.x || any_sign.y ? 2 * a[i] : 0.0f;
