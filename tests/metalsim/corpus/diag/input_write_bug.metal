// BUG: the kernel scales its input in place (casting const away), then copies it out.
uint i = thread_position_in_grid.x;
device float* scaled = (device float*)a;
scaled[i] = 2.0f * a[i];
out[i] = scaled[i];
