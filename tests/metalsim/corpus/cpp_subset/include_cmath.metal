// expect: header line 4: 'cmath' file not found
// A host C++ header: a Mac's Metal compiler has its own headers only (<metal_stdlib>, <metal_math>, ...), so std::sqrt
// and the C library behind it are not there.
#include <cmath>
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * std::sqrt(a[i] * a[i]);
