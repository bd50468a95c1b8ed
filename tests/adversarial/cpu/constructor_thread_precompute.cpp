// 4, 11: a constructor (load-time code) starts a thread before the runner's second filter stage; the
// thread outlives every call and computes each repetition's outputs as soon as ksearch has staged its
// inputs, before the timed call starts. The rules refuse the constructor; without them, the sandbox
// refuses new threads from before the candidate is loaded: it computes in the call, for real.
// expect: rejected
// expect-without-rules: passed
// expect-no-speedup
#include <immintrin.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

namespace {
// As the seed computes (so that, neutralized, it is timed doing the seed's work), but back to front: y[0] is the
// last element written, so a call that finds it written finds all of them.
void compute(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = rows - 1; r >= 0; --r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = cols - 1; c >= 0; --c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
    std::atomic_thread_fence(std::memory_order_release);
  }
}

struct Job {
  const float* x;
  float* y;
  int64_t rows, cols;
};
struct Jobs {
  Job list[16];
  std::atomic<int> count{0};
};

bool staged(const Job& j) { return std::isnan(j.y[0]) && std::isnan(j.y[j.rows * j.cols - 1]); }

void* precompute(void* arg) {
  auto* jobs = static_cast<Jobs*>(arg);
  for (;;) {
    for (int i = 0; i < jobs->count.load(); ++i)
      if (staged(jobs->list[i])) compute(jobs->list[i].x, jobs->list[i].y, jobs->list[i].rows, jobs->list[i].cols);
    _mm_pause();
  }
}
Jobs* jobs = nullptr;  // set at load time, so in the state every call starts from

__attribute__((constructor)) void start_precomputing() {
  auto* fresh = new Jobs;
  pthread_t thread;
  if (pthread_create(&thread, nullptr, precompute, fresh) == 0) jobs = fresh;
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const volatile float* first = y;
  if (!std::isnan(y[rows * cols - 1])) {  // the thread was here first
    while (std::isnan(*first)) _mm_pause();
    return;
  }
  compute(x, y, rows, cols);
  if (!jobs) return;  // refused: every call computes
  for (int i = 0; i < jobs->count.load(); ++i)
    if (jobs->list[i].x == x && jobs->list[i].y == y) return;
  if (jobs->count.load() < 16) {
    jobs->list[jobs->count.load()] = {x, y, rows, cols};
    jobs->count.fetch_add(1);
  }
}
