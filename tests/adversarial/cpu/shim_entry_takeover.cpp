// 12: takes over the harness's entry point. The task's shim is compiled after the candidate in the same translation
// unit: a function-like macro named ksearch_entry would rename the shim's definition to a dead function, and the
// candidate defines `(ksearch_entry)` itself (the parentheses stop the macro) with the raw calling convention, so the
// declared signature is no longer what the runner calls. The candidate's macros are undefined before the shim, whose
// ksearch_entry then collides with the candidate's.
// expect: compile_error
// expect-without-rules: compile_error
// expect-message: ksearch_entry
#include <cmath>
#include <cstdint>
#define ksearch_entry(...) ksearch_entry_dead(__VA_ARGS__)
extern "C" __attribute__((visibility("default"))) void (ksearch_entry)(void* const* ptrs, const int64_t* ints, const double*, void*) {
  const float* x = (const float*)ptrs[0]; float* y = (float*)ptrs[1];
  const int64_t rows = ints[0], cols = ints[1];
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols; float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) { yr[c] = std::exp(xr[c] - m); s += yr[c]; }
    for (int64_t c = 0; c < cols; ++c) yr[c] /= s;
  }
}
// The declared entry, never called by the runner (the shim's call of it is inside the renamed function).
extern "C" void softmax(const float*, float* y, int64_t, int64_t) { y[0] = 0; }
