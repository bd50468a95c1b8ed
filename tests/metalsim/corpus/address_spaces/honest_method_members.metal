// expect: passes
// Members seen through pointers in their own space: a thread method's member through a thread pointer (declared after
// the method), a device method's through a device pointer, a template's member array, and a parameter that shadows a
// member.
struct Pair {
  float first() const { const thread float* p = values; return p[0]; }
  float values[2];
};
struct Slot {
  float v;
  float read() const device { const device float* p = &v; return p[0]; }
};
template <typename T> struct Box {
  T items[2];
  T sum() const { const thread T* p = &items[0]; return p[0] + p[1]; }
};
struct Shadow {
  float values[2];
  float pick(const device float* values) const { return values[0]; }
};
// --- body ---
uint i = thread_position_in_grid.x;
Pair pair{{a[i], 0}};
Box<float> box{{a[i], a[i]}};
Shadow s{{0, 0}};
o[i] = 2 * pair.first() + box.sum() - 2 * s.pick(a + i) + 2 * a[i];
o[i] = o[i] - ((device Slot*)(o + i))->read() + 2 * a[i];
