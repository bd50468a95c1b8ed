// expect: passes
// Metal's half as a type everywhere a type goes: a variable's, a cast's, a template argument, a conversion operator,
// a parameter's and a pointer's; and names that only start with it.
struct Wrapped {
  float v;
  operator half() const { return half(v); }
};
template <typename T> T twice(T x) { return x + x; }
inline float widen(half h, thread const half* more) { return float(h) + float(*more); }
// --- body ---
uint i = thread_position_in_grid.x;
const half zero = static_cast<half>(0.0f);
half halfway = (half)a[i];
const Wrapped w{a[i]};
const half h = w;
o[i] = float(twice<half>(h)) + widen(zero, &halfway) - float(halfway) + float(sizeof(half)) - 2.0f;
