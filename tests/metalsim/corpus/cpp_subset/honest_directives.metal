// expect: passes
// Preprocessor lines are not code until a macro is used: a `#define` continued by a backslash, one whose text goes on
// past a block comment spanning lines (a comment is one space to the preprocessor), each holding what would be refused
// as code (a static local outside `constant`), and a `#if` comparing numbers.
#define DECLARE_UNUSED_TABLE \
  static const float unused_table[2] = {1.0f, 1.0f};
#define DECLARE_UNUSED_SCALE /* the declaration below is this macro's text,
  not a program-scope variable */ static const float unused_scale = 2.0f;
#if 3 > 2
#define HALF 0.5f
#else
#define HALF 2.0f
#endif
#define PICK(x) ((x) > 1.0f ? (x) : 1.0f)
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = PICK(4.0f) * HALF * a[i];
