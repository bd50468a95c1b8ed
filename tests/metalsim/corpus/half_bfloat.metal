// half and bfloat arithmetic with rounding to 16 bits after each operation.
uint i = thread_position_in_grid.x;
half h = half(a[i]);
h = h * 3.0h + half(1);
bfloat b = bfloat(a[i]);
b += bfloat(0.5f);
out_h[i] = h;
out_b[i] = b;
out_f[i] = float(h) + float(b) + float(max(h, half(0.25f)));
