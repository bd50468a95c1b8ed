// 12: implements the entry with other parameter types, which an ABI-blind harness would call anyway.
// expect: compile_error
// expect-without-rules: compile_error
extern "C" void softmax(const double* x, double* y, int rows, int cols) { y[0] = x[0] + rows + cols; }
