// BUG: the most negative int divided by -1 (n is 64): the quotient does not fit an int.
uint i = thread_position_in_grid.x;
int lowest = -2147483647 - int(n - 63u);
int minus_one = int(63u - n);
out[i] = float(lowest / minus_one) + a[i];
