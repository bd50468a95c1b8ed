// BUG: a negative index 5 million elements before the input's start.
int i = int(thread_position_in_grid.x);
out[i] = a[i - 5000000];
