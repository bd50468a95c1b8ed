// expect: passes
// A float converted to an integer type it does not fit saturates, and NaN converts to 0, as a GPU's conversion does
// (host C++ leaves both undefined: x86 gives INT_MIN, and a constant-folded one could drop the store it reaches).
// --- body ---
uint i = thread_position_in_grid.x;
float big = a[i] * 1e10f;
float nan_value = (a[i] - a[i]) / (a[i] - a[i]);
int wide = int(big);
uint unsigned_wide = uint(big);
bool ok = wide == (a[i] > 0.0f ? 2147483647 : a[i] < 0.0f ? -2147483647 - 1 : 0) &&
          unsigned_wide == (a[i] > 0.0f ? 4294967295u : 0u) && int(nan_value) == 0 && uint(-1.5f) == 0u &&
          int(3e9f) == 2147483647 && int(-2.7f) == -2;
o[i] = ok ? 2.0f * a[i] : -1000.0f;
