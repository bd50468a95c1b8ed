// 4, 5: work off the clock inside the runner's `prepare`. At the end of each call the candidate redirects the next
// wake-up of OpenMP's sleeping worker: libgomp's pool keeps an array of the workers' gomp_thread structs
// (pool->threads), and the main thread writes each worker's next function (`fn`, `data`) there before it opens the
// dock. The candidate puts a decoy struct in the pool's slot and its own function in the real worker's `fn`: the next
// region's master fills the decoy and the worker runs the candidate's function. That region is the runner's own
// wake-up region in `prepare` (after ksearch staged and poisoned the next repetition's inputs and measured the
// threads' CPU time "between calls"); the worker computes the staged outputs there, then copies the decoy's team
// state into its own struct, puts the pool's slot back and runs the runner's function, arriving at the barrier as
// usual. The main thread waits for it in prepare, which no clock covers. The timed call finds its outputs written.
// Defenses: ksearch reads each output at 4096 random places after `prepare` for the poison it must still hold (here:
// rejected), and charges a wake-up longer than the calibrated ones to the call after it (for a candidate that
// computes into a buffer of its own there and copies it in the call).
// expect: rejected
// expect-without-rules: rejected
// expect-message: was written before the timed call
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
  int64_t rows = 0, cols = 0;
  int sets = 0;
  Set set[16];
  // libgomp internals, found at run time
  char* worker = nullptr;  // the worker's gomp_thread
  char* main_thr = nullptr;
  uintptr_t team = 0, worker_task = 0;
  size_t task_off = 0;
  uintptr_t* pool = nullptr;
  alignas(64) char decoy[1024];
  std::atomic<int> armed{0};
  std::atomic<long> hooks{0}, precomputed{0}, skipped_calls{0}, calls{0};
};

Mailbox* mailbox() {
  Mailbox* m;
  std::memcpy(&m, stdout->_unused2, sizeof m);
  return m;
}

void softmax_row(const float* x, float* y, int64_t cols) {
  float mx = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) mx = std::fmax(mx, x[c]);
  for (int64_t c = 0; c < cols; ++c) s += std::exp(x[c] - mx);
  const float inv = 1.0f / s;
  for (int64_t c = 0; c < cols; ++c) y[c] = std::exp(x[c] - mx) * inv;
}

// This thread's gomp_thread (fn, data, then ts = {team, work_share, last_work_share, team_id, level, active_level}).
char* find_thr(unsigned id) {
  const auto tp = reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  for (uintptr_t a = tp - 40; a > tp - 8192; a -= 8) {
    const auto* q = reinterpret_cast<const uintptr_t*>(a);
    const auto* u = reinterpret_cast<const unsigned*>(a + 24);
    if (q[0] && q[1] > q[0] && q[1] - q[0] < 4096 && (q[1] & 63) == 0 && u[0] == id && u[1] == 1 && u[2] == 1)
      return reinterpret_cast<char*>(a - 16);
  }
  return nullptr;
}

void hook(void* ctx) {
  Mailbox* m = static_cast<Mailbox*>(ctx);
  m->hooks.fetch_add(1);
  // 1. The staged repetition's outputs (the poisoned ones), off every clock.
  for (int s = 0; s < m->sets; ++s)
    for (int64_t r = 0; r < m->rows; ++r) {
      float* y = m->set[s].y + r * m->cols;
      if (std::isnan(y[m->cols - 1]) || std::isnan(y[0])) {
        softmax_row(m->set[s].x + r * m->cols, y, m->cols);
        m->precomputed.fetch_add(1, std::memory_order_relaxed);
      }
    }
  // 2. Become the team member the master thinks it woke: its team state from the decoy, the pool's slot put back.
  char* thr = m->worker;
  void (*fn)(void*);
  void* data;
  std::memcpy(&fn, m->decoy, 8);
  std::memcpy(&data, m->decoy + 8, 8);
  std::memcpy(thr + 16, m->decoy + 16, m->task_off + 8 - 16);
  reinterpret_cast<char**>(m->pool[0])[1] = thr;
  m->armed.store(0);
  fn(data);
}

void discover(Mailbox* m) {
  char* thr[2] = {nullptr, nullptr};
#pragma omp parallel num_threads(2)
  {
    const int id = omp_get_thread_num();
    if (id < 2) thr[id] = find_thr(unsigned(id));
#pragma omp barrier
#pragma omp single
    if (thr[0] && thr[1]) {
      const uintptr_t team = *reinterpret_cast<uintptr_t*>(thr[1] + 16);
      for (size_t off = 16 + 40; off < 16 + 200 && !m->task_off; off += 8) {
        const uintptr_t w1 = *reinterpret_cast<uintptr_t*>(thr[1] + off), w0 = *reinterpret_cast<uintptr_t*>(thr[0] + off);
        if (w1 > team && w1 < team + 0x40000 && w0 > team && w0 < w1) {
          m->task_off = off;
          m->worker_task = w1;
        }
      }
      for (size_t off = m->task_off + 8; m->task_off && off < m->task_off + 80 && !m->pool; off += 8) {
        const uintptr_t w1 = *reinterpret_cast<uintptr_t*>(thr[1] + off), w0 = *reinterpret_cast<uintptr_t*>(thr[0] + off);
        if (w1 && w1 == w0 && (w1 - team + (1ull << 32)) < (2ull << 32)) {
          auto* pool = reinterpret_cast<uintptr_t*>(w1);
          const uintptr_t arr = pool[0];
          if (arr && (arr - team + (1ull << 32)) < (2ull << 32) && reinterpret_cast<char**>(arr)[1] == thr[1]) m->pool = pool;
        }
      }
      m->team = team;
      m->worker = thr[1];
      m->main_thr = thr[0];
    }
  }
}

// After the candidate's last region: the pool's last team is the one the next region of two threads reuses.
void arm(Mailbox* m) {
  if (!m->pool || m->pool[2] != m->team) return;
  std::memcpy(m->decoy, m->worker, sizeof m->decoy > 512 ? 512 : sizeof m->decoy);
  char* thr = m->worker;
  void (*h)(void*) = hook;
  void* d = m;
  std::memcpy(thr + 16, &m->team, 8);
  std::memcpy(thr + m->task_off, &m->worker_task, 8);
  std::memcpy(thr + 8, &d, 8);
  std::memcpy(thr, &h, 8);
  reinterpret_cast<char**>(m->pool[0])[1] = m->decoy;
  m->armed.store(1);
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  Mailbox* m = mailbox();
  if (!m) {
    m = new Mailbox();
    std::memcpy(stdout->_unused2, &m, sizeof m);
  }
  m->calls.fetch_add(1);
  if (m->rows != rows || m->cols != cols) {
    m->sets = 0;
    m->rows = rows;
    m->cols = cols;
  }
  bool known = false;
  for (int s = 0; s < m->sets; ++s) known |= m->set[s].y == y;
  if (!known && m->sets < 16) m->set[m->sets++] = {x, y};
  if (!m->pool) discover(m);
  // Rows the worker left poisoned (a new buffer set, or no hijacked wake-up before this call) are computed here; a
  // cheap pass over the inputs keeps the time above the roofline's bound.
  int64_t missing = 0;
  float acc = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (std::isnan(y[r * cols + cols - 1]) || std::isnan(y[r * cols])) ++missing;
    for (int64_t c = 0; c < cols; c += 16) acc += x[r * cols + c];
  }
  if (missing) {
#pragma omp parallel for num_threads(2)
    for (int64_t r = 0; r < rows; ++r)
      if (std::isnan(y[r * cols + cols - 1]) || std::isnan(y[r * cols])) softmax_row(x + r * cols, y + r * cols, cols);
  } else {
    m->skipped_calls.fetch_add(1);
  }
  if (acc == 12345.678f) y[0] = acc;  // keeps the pass
  arm(m);
  if (m->calls.load() % 50 == 0)
    fprintf(stderr, "calls %ld hooks %ld precomputed rows %ld skipped %ld pool %p task_off %zu\n", m->calls.load(),
            m->hooks.load(), m->precomputed.load(), m->skipped_calls.load(), (void*)m->pool, m->task_off);
}
