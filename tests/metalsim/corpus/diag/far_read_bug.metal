// BUG: an index 100 million elements past the input, far beyond any red zone; the read would fault on the host.
uint i = thread_position_in_grid.x;
out[i] = a[i + 100000000u];
