// expect: header line 3: 'helpers.h' file not found
// MLX builds a custom kernel from its source text alone: there is no file beside it to include.
#include "helpers.h"
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i];
