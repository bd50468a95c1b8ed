// 5, 11: runs its own function at load time, before the runner's second seccomp stage and its snapshot of the
// candidate's data, by placing a pointer to it in .init_array with a section attribute whose name is pasted
// from two tokens (the text pattern that refuses `section(` sees `sec ## tion`). Here it only fills a table
// the kernel reads (load-time code could as well have started a thread or opened a file while both were
// still allowed). The object rules see the extra .init_array entry; without them it computes correctly.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#define PLACED_IN(where) __attribute__((sec##tion(where), used))
float scale_table[2];
void fill_table() {
  scale_table[0] = 1.0f;
  scale_table[1] = 0.0f;
}
void (*const run_at_load)() PLACED_IN(".init_array") = fill_table;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = scale_table[0] * std::exp(x[r * cols + c] - m) / s;
  }
}
