// simdgroup_matrix: thread_elements() written per lane, a half x half product accumulated in float,
// a diagonal constructor and a transposed store.
uint lane = thread_index_in_simdgroup;
simdgroup_half8x8 ma, mb;
simdgroup_load(ma, a);
simdgroup_load(mb, b, 8, ulong2(0, 0), true);
simdgroup_float8x8 acc = simdgroup_float8x8(2.0f);
acc.thread_elements()[1] = float(lane);
simdgroup_multiply_accumulate(acc, ma, mb, acc);
simdgroup_store(acc, out, 8);
simdgroup_float8x8 product;
simdgroup_multiply(product, ma, mb);
simdgroup_store(product, out + 64, 8, ulong2(0, 0), true);
vec<float, 2> mine = product.thread_elements();
out_lanes[2 * lane] = mine.x;
out_lanes[2 * lane + 1] = mine.y;
