// expect: header line 4: 'stdlib.h' file not found
// Any spelling of an include of a host header fails as it does on a Mac: through a macro, and split by a line splice.
#define HOST_HEADER <stdlib.h>
#include HOST_HEADER
#inc\
lude <stdint.h>
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i] + float(rand() % 1);
