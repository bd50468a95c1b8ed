// The divisor is checked before dividing (n - 64 is 0 here).
uint i = thread_position_in_grid.x;
uint d = n - 64u;
int lowest = -2147483647 - int(n - 63u);
int divisor = int(63u - n);
out[i] = d == 0u ? float(i) : float(i / d);
out[i] += divisor == -1 ? 0.0f : float(lowest / divisor);
