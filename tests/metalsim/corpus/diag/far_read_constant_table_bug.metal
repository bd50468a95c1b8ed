// BUG: a program-scope constant table read 16 TiB before its start (constant data is not instrumented: the read
// faults on the host).
constant float kTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};
long i = long(thread_position_in_grid.x);
out[i] = a[i] * kTable[i - (1l << 42)];
