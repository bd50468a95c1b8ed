// expect: header line 3: 'stdio.h' file not found
// printf from the host's C library would write into the emulator's output; Metal has no <stdio.h>.
#include <stdio.h>
// --- body ---
uint i = thread_position_in_grid.x;
if (i == 0) printf("a[0] = %f\n", a[0]);
o[i] = 2.0f * a[i];
