// expect: body line 2: no matching function for call to 'dot'
// Metal's geometric functions take floating vectors: dot of two int4 does not build (nor mix, smoothstep, isnan ...).
// --- body ---
uint i = thread_position_in_grid.x;
int d = dot(int4(int(i)), int4(1));
o[i] = float(d);
