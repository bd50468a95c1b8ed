uint i = thread_position_in_grid.x;
Pair p{a[i], a[i] + 1.0f};
thread Pair* pp = &p;
pp->hi += weighted<float, N>(a, i);
if (FLAG) {
  store_pair(out + 3 * i, p);
} else {
  out[3 * i] = 0.0f;
  out[3 * i + 1] = 0.0f;
}
out[3 * i + 2] = p.span() * float(sizeof(U));
