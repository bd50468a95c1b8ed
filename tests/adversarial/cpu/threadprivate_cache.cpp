// 6: replays outputs for inputs it has seen (same buffer, same first and last values), from a cache
// whose pointer lives in `#pragma omp threadprivate` storage: thread-local storage, which the
// runner's reset of .data/.bss does not restore, and which the old rules (only `thread_local` and
// `__thread`) did not see. Fresh inputs are computed, so every check passes; the timed repetitions
// of a rotating buffer are replays. The run-time defenses alone do not stop it (it passes, timed on
// its replays): the identifier rules and the object rules (a TLS segment) do.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
struct Seen {
  const float* x;
  int64_t n;
  float first, last;
  std::vector<float> y;
};
std::vector<Seen>* seen;
#pragma omp threadprivate(seen)
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  if (!seen) seen = new std::vector<Seen>();
  for (const Seen& s : *seen)
    if (s.x == x && s.n == n && s.first == x[0] && s.last == x[n - 1]) {
      std::memcpy(y, s.y.data(), size_t(n) * sizeof(float));
      return;
    }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  seen->push_back({x, n, x[0], x[n - 1], std::vector<float>(y, y + n)});
}
