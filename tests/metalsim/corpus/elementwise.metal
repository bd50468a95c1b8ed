// Elementwise: metal::, fast:: and precise:: math, a template dtype, 0-d input.
uint i = thread_position_in_grid.x;
if (i >= n_elems) return;
T x = a[i];
out[i] = T(metal::exp(float(x)) * 0.5 + fast::sqrt(abs(float(x))) + precise::tanh(float(x)) * scale);
