// expect: header line 4: 'cmath' file not found
// A host C++ header: a Mac's Metal compiler has its own headers only (<metal_stdlib>, <metal_math>, ...), so the C
// library's sqrt behind <cmath> is not there (std::sqrt is refused as namespace std: corpus std_namespace).
#include <cmath>
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * ::sqrt(a[i] * a[i]);
