// expect: passes
// Hexadecimal floating literals are float, as decimal ones are (Metal has no double): `a * 0x1.5555555555555p-2`
// multiplies by the float nearest 1/3, not by a double; `0x1p-1h` is a half literal.
constant float kThird = 0x1.5555555555555p-2;
// --- body ---
uint i = thread_position_in_grid.x;
half h = 0x1p-1h;
float third = 0.333333343f;
bool ok = a[i] * 0x1.5555555555555p-2 == a[i] * third && kThird == third && 0x1.8p1f == 3.0f && float(h * h) == 0.25f &&
          sizeof(0x1p-1h) == 2 && sizeof(0x1p0) == 4;
o[i] = ok ? 2.0f * a[i] : -1000.0f;
