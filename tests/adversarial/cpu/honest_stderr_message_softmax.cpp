// Control: an honest softmax that reports an impossible shape on stderr (fprintf, fputs) and assert()s its
// arguments, as error-checking code does; the streams a candidate reaches go to the runner's log. It must pass.
// expect: passed
// expect-without-rules: passed
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  assert(x != nullptr && y != nullptr);
  if (rows < 0 || cols <= 0) {
    std::fprintf(stderr, "softmax: bad shape %lld x %lld\n", (long long)rows, (long long)cols);
    std::fputs("softmax: nothing computed\n", stderr);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float m = in[0];
    for (int64_t c = 1; c < cols; ++c) m = std::fmax(m, in[c]);
    float s = 0.0f;
    for (int64_t c = 0; c < cols; ++c) s += (out[c] = std::exp(in[c] - m));
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < cols; ++c) out[c] *= inv;
  }
}
