// A candidate that does not compile.
// expect: compile_error
// expect-without-rules: compile_error
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) { y[0] = x[0] + undefined_name; }
