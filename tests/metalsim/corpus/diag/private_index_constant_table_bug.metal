// BUG: a program-scope constant table indexed past its end (index n - 60 = 4).
constant float kTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};
uint i = thread_position_in_grid.x;
out[i] = a[i] * kTable[n - 60u];
