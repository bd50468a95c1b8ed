// expect: passes
// Metal's own headers, in either spelling, with a comment after one: the shim provides them all.
#include <metal_stdlib>
#include <metal_simdgroup>
#include <metal_atomic> // atomics
#include "metal_math"
#include <metal_integer>
using namespace metal;
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i];
