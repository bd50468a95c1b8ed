// BUG: a program-scope constant table read 16 TiB before its start through a pointer (constant data is not
// instrumented; local-bounds, which knows the table's size, traps at the read).
constant float kTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};
long i = long(thread_position_in_grid.x);
constant float* table = kTable;
out[i] = a[i] * table[i - (1l << 42)];
