// expect: passes
// Compile-time recursion over distinct instantiations is no recursive call (MLX's steel utils do both).
template <int N> inline float scale_up(float x) { return 2 * scale_up<N - 1>(x) / 2; }
template <> inline float scale_up<0>(float x) { return 2 * x; }
template <typename T> constexpr T sum(T x) { return x; }
template <typename T, typename... Us> constexpr T sum(T x, Us... us) { return x + sum(us...); }
constant constexpr int kZero = sum(1, 2, -3);  // program scope: Metal keeps it in constant memory
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = scale_up<3>(a[i]) + sum(0.0f, float(kZero));
