// BUG: the loop ends on a negative sum, which positive inputs never give; every turn reads the input.
uint i = thread_position_in_grid.x;
float total = 0.0f;
for (uint k = 0; total >= 0.0f; ++k) total += a[k % 64u];
out[i] = total;
