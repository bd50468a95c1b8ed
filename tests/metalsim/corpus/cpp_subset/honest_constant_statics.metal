// expect: passes
// Variables of static storage in the constant address space (program scope, a struct's static member as MLX's steel
// writes it, a function's static table), beside a function's own constexpr locals, enums and a `#define` line.
#define MTL_CONST constant
constant constexpr float kHalf = 0.5f;
static MTL_CONST constexpr int kFour = 4;
constant float kTable[2] = {2.0f, 2.0f};
struct Tile {
  static constant constexpr int rows = 2;
  enum { columns = 2 };
  float values[2];
};
inline float weight(uint i) {
  static constant float doubled[2] = {1.0f, 1.0f};
  constexpr float ones[2] = {1.0f, 1.0f};
  return doubled[i & 1] * ones[i & 1] * kTable[i % 2];
}
// --- body ---
uint i = thread_position_in_grid.x;
constexpr int local_four = 4;
Tile t{{kHalf, kHalf}};
o[i] = weight(i) * a[i] * float(kFour / local_four) * (t.values[0] + t.values[1]) * float(Tile::rows * Tile::columns) / 4.0f;
