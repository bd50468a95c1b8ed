// expect: passes
// Vectors direct-initialized with parentheses, as Metal's constructors allow: a local of a float, int, half or alias
// type, two declarators in one declaration, and a struct member in a constructor's initializer list. Not rewritten:
// a call after a ternary's ':' or in an argument list (`c ? x : op(a, b)`), and a scalar member named like a vector
// elsewhere (`mean`, a float member here and a float2 in the body).
typedef float2 pair_t;
struct Scaled {
  float2 v;
  half2 h;
  Scaled(float x) : v(x, 3.0f * x), h(x, 0.0f) {}
};
struct Add {
  float operator()(float a, float b) const { return a + b; }
};
struct Stats {
  float mean;
  Stats(float mean) : mean(mean) {}
};
template <typename U> U pick(bool c, U x, Add op) { return c ? x : op(x, U(1)); }
float2 sum_of(float2 p);
float2 sum_of(float2 p) { float2 r(p.x + p.y, 0.0f); return r; }
// --- body ---
uint i = thread_position_in_grid.x;
float2 v(a[i], 3.0f * a[i]);
int2 k(1, 2), j(3, 4);
half2 h(a[i], 0.0f);
pair_t p(0.5f, 0.5f);
const Scaled s(a[i]);
float four = v.x + v.y;                                          // 4 a
float parts = float(k.x + k.y + j.x + j.y) / 10.0f;              // 1
float twice = sum_of(s.v).x - float(s.h.x) - float(h.x) + p.x + p.y;  // 4 a - 2 a + 1
float2 mean(0.0f, pick(false, 0.0f, Add()) - Stats(1.0f).mean);  // (0, 0)
o[i] = (four + twice - 1.0f) * parts / 3.0f + mean.x + mean.y;    // (6 a) / 3
