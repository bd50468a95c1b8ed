// expect: header line 5: recursive call: 'ping' calls 'pong', which leads back to it
inline float ping(float x, int n);
inline float pong(float x, int n) { return n == 0 ? x : ping(x, n - 1); }
inline float ping(float x, int n) {
  return n == 0 ? x : pong(x, n - 1);
}
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * ping(a[i], 4);
