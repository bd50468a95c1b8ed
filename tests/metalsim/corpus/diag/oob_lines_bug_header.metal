// BUG (with oob_lines_bug.metal): the helper writes one past the index it is given.
inline void store_pair(device float* o, uint i, float v) {
  o[i + 1] = v;
}
