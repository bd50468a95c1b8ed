// BUG: a program-scope constant table read 64 GiB past its end (constant data is not instrumented:
// the read faults on the host).
constant float kTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};
uint i = thread_position_in_grid.x;
out[i] = a[i] * kTable[i + (1ul << 34)];
