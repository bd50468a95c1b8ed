// expect: passes
// Structs with methods, operator overloading, operator[], a deleted copy (what Metal's own atomics do)
// and an MLX-style trait derived from a constant: none of it is a lambda, new/delete or a virtual call.
struct Pair {
  float v[2];
  float operator[](int k) const { return v[k]; }
  Pair operator+(Pair other) const { return Pair{{v[0] + other[0], v[1] + other[1]}}; }
};
struct Once {
  Once() = default;
  Once(const thread Once&) = delete;
  float value() const { return 1; }
};
// (in a namespace of its own, as MLX's steel headers keep theirs: a global one beside metal::integral_constant, which
// `using namespace metal` brings in, would make the unqualified name ambiguous)
namespace steel {
template <typename T, T v> struct integral_constant { static constexpr constant T value = v; };
}  // namespace steel
template <typename T> struct doubles : steel::integral_constant<int, 2> {};
constant float kOffsets[2] = {0.0f, -0.0f};
// --- body ---
uint i = thread_position_in_grid.x;
Pair p{{a[i], a[i]}};
Pair q = p + Pair{{kOffsets[0], kOffsets[1]}};
float parts[2] = {q[0], q[1]};
o[i] = parts[0] * (doubles<float>::value / 2) * Once().value() + parts[1];
