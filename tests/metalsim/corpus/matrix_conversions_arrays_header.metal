// metal_array's array<T, N> as a struct member and a reference parameter.
struct Taps {
  metal::array<float, 3> weights;
  float bias;
};
inline float weighted(thread const metal::array<float, 3>& w, float x) { return w[0] * x + w[1] * x * x + w[2]; }
