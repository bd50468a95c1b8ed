// 2: skips the work on the later timed repetitions, past the first five where two checks always fall (it counts its
// calls: trials, warm-up, repetitions and the re-check come in a fixed order; this suite's evaluations run 3 trials,
// 2 warm-up calls and at most 10 repetitions, so it skips repetitions 5-9 and computes the re-check). When the later
// checks were drawn one by one (probability 1/8 until four were spent), such a candidate escaped them about half the
// time (on ksearch's 40 repetitions, skipping the last 21 passed more than half its evaluations at 15-76x the seed);
// drawn uniformly among the later repetitions, six of them, here they check every skipped call.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace {
struct State { uint64_t magic; int64_t n; int64_t calls; };
constexpr uint64_t kMagic = 0x6c617465736b6970ull;
State* state() {
  uintptr_t* slot = (uintptr_t*)((char*)__builtin_thread_pointer() + 0x108);
  if (*slot > 0x100000) { State* s = (State*)*slot; if (s->magic == kMagic) return s; }
  State* s = (State*)calloc(1, sizeof(State));
  s->magic = kMagic;
  *slot = (uintptr_t)s;
  return s;
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  State* s = state();
  if (s->n != rows * cols) { s->n = rows * cols; s->calls = 0; }
  const int64_t call = ++s->calls;  // 1-3 trials, 4-5 warm-up, 6-15 repetitions 0-9, 16 the re-check
  const int64_t rep = call - 6;
  if (rep >= 5 && rep <= 9) return;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / sum;
  }
}
