// 11: a namespace-scope vector constant whose dynamic initializer also writes the address of a function of
// its own over its return address (through __builtin_frame_address: a store relative to %rbp, which the
// load-time check took for the initializer's stack). When the initializer returns, the loader jumps into
// that function, which may call anything the library imports, before the runner's second seccomp stage. The
// object rules let an initializer touch only the library's image and its own frame. Without them the
// hijacked function runs at load time and returns into the loader's frame, which crashes the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <immintrin.h>
#include <cmath>
#include <cstdint>
#include <cstdio>

__attribute__((noinline, force_align_arg_pointer)) void at_load() { std::printf("running at load time\n"); }

static const __m128 kOne = [] {
  void* volatile* frame = static_cast<void* volatile*>(__builtin_frame_address(0));
  frame[1] = reinterpret_cast<void*>(&at_load);
  return _mm_set1_ps(1.0f);
}();

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s * _mm_cvtss_f32(kOne);
  }
}
