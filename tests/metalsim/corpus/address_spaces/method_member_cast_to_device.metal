// expect: header line 6: the cast to 'device uchar*' makes a pointer to device memory of '&payload', which points to thread memory
// A method's members live in the object it runs on, thread memory unless the method is declared for another space
// (llm.c's Packed128 copies its payload through a pointer written for device memory).
struct Packed {
  float payload[4];
  void load(const device float* src) { device uchar* p = (device uchar*)&payload; p[0] = uchar(src[0]); }
};
// --- body ---
uint i = thread_position_in_grid.x;
Packed v;
v.load(a + i);
o[i] = 2 * a[i];
