// Shape/stride parameters and MLX's elem_to_loc.
uint i = thread_position_in_grid.x;
if (i >= uint(a_shape[0] * a_shape[1])) return;
int64_t loc = elem_to_loc(i, a_shape, a_strides, a_ndim);
out[i] = a[loc] + float(a_ndim) * 1000.0f + float(ceildiv(a_shape[1], 4));
