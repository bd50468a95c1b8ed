// 4, 6: work between calls on an OpenMP worker that never leaves the candidate's parallel region. The worker finds
// libgomp's team barrier (its gomp_thread in static TLS, below __builtin_thread_pointer()), counts itself as arrived at
// the region's end, and loops forever: the main thread passes the barrier and returns, no thread is created, the
// level is 0. Between calls it computes every output row that ksearch has just poisoned (the inputs are staged by
// then), so the timed calls find their outputs written; stdout's unused padding keeps the worker's list of buffers.
// It passed at up to 45x the seed (a red-team probe, 2026-12-05): every check compared correct outputs, and the CPU
// time of the runner's threads was measured over the calls only. ksearch now waits for the runner's other threads to
// fall asleep before it stages a repetition's inputs: this one never does.
// expect: rejected
// expect-without-rules: rejected
// expect-message: ran outside its calls
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {
struct Set {
  const float* x;
  float* y;
};
struct Mailbox {
  std::atomic<int64_t> rows{0}, cols{0};  // the current workload's shape
  std::atomic<int> sets{0};
  std::atomic<int> escaped{0};
  std::atomic<uint64_t> sweeps{0};
  Set set[16];
};

// Kept across calls in stdout's unused padding, which no reset reaches.
Mailbox* mailbox() {
  Mailbox* m;
  std::memcpy(&m, stdout->_unused2, sizeof m);
  return m;
}

void softmax_row(const float* x, float* y, int64_t cols) {
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
  for (int64_t c = 0; c < cols; ++c) s += std::exp(x[c] - m);
  for (int64_t c = 0; c < cols; ++c) y[c] = std::exp(x[c] - m) / s;
}
bool poisoned(const float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(y[i])) return false;
  return true;
}
// The worker writes a row in order: its last element written, the row is.
bool written(const float* y, int64_t n) { return !std::isnan(y[n - 1]); }

// libgomp's team barrier, found from this thread's gomp_thread.ts in static TLS
// ({team, work_share = &team->work_shares[0], last_work_share, team_id, level, active_level}; the barrier precedes work_shares).
unsigned* team_barrier() {
  const auto tp = reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  const unsigned id = unsigned(omp_get_thread_num());
  for (uintptr_t a = tp - 40; a > tp - 8192; a -= 8) {
    const auto* q = reinterpret_cast<const uintptr_t*>(a);
    const auto* u = reinterpret_cast<const unsigned*>(a + 24);
    if (q[0] && q[1] > q[0] && q[1] - q[0] < 4096 && (q[1] & 63) == 0 && u[0] == id && u[1] == 1 && u[2] == 1)
      return reinterpret_cast<unsigned*>(q[1] - 128);
  }
  return nullptr;
}

// Computes every row that ksearch has just poisoned (its inputs are staged by then), between calls.
[[noreturn]] void work_between_calls(Mailbox* m) {
  for (;;) {
    const int64_t rows = m->rows.load(std::memory_order_acquire), cols = m->cols.load(std::memory_order_acquire);
    const int n = m->sets.load(std::memory_order_acquire);
    for (int s = 0; s < n; ++s)
      for (int64_t r = 0; r < rows; ++r)
        if (poisoned(m->set[s].y + r * cols, cols)) softmax_row(m->set[s].x + r * cols, m->set[s].y + r * cols, cols);
    m->sweeps.fetch_add(1, std::memory_order_release);
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  Mailbox* m = mailbox();
  if (!m) {
    m = new Mailbox();
    std::memcpy(stdout->_unused2, &m, sizeof m);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
      if (unsigned* bar = team_barrier()) {
        __atomic_fetch_sub(&bar[17], 1u, __ATOMIC_ACQ_REL);  // arrives at the end barrier, never to leave
        m->escaped.store(1);
        work_between_calls(m);
      }
      m->escaped.store(-1);
    } else {
      while (m->escaped.load() == 0) {
      }
    }
  }
  const bool same_shape = m->rows.load() == rows && m->cols.load() == cols;
  if (!same_shape) {  // a new workload: forget the old buffers, and let the worker finish a sweep over them
    m->sets.store(0);
    m->rows.store(rows);
    m->cols.store(cols);
    const uint64_t seen = m->sweeps.load();
    while (m->escaped.load() == 1 && m->sweeps.load() < seen + 2) {
    }
  }
  bool known = false;
  for (int s = 0; s < m->sets.load(); ++s) known |= m->set[s].y == y;
  if (!known && m->sets.load() < 16) {
    m->set[m->sets.load()] = {x, y};
    m->sets.fetch_add(1, std::memory_order_release);
  }
  for (int64_t r = 0; r < rows; ++r)
    if (!same_shape || !written(y + r * cols, cols)) softmax_row(x + r * cols, y + r * cols, cols);
}
