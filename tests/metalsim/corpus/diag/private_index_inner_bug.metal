// BUG: the inner dimension of a 2D private array indexed past its end (index n - 61 = 3): the element read lies
// in the next row, but the index is undefined in Metal.
uint i = thread_position_in_grid.x;
float grid2[2][3] = {{a[i], 2, 3}, {4, 5, 6}};
out[i] = grid2[0][int(n) - 61];
