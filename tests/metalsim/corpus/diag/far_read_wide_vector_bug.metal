// BUG: long4 (32-byte) vectors read a billion vectors past the input.
uint i = thread_position_in_grid.x;
const device long4* wide = (const device long4*)a;
long4 v = wide[i + (1ul << 30)];
out[i] = float(v.x + v.y + v.z + v.w);
