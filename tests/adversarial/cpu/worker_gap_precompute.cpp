// 4, 5: work off the clock between `prepare` and the timed call (a seventh probe round). As worker_wake_up_hijack, the
// candidate redirects OpenMP's sleeping worker to its own function at the end of a call, so that the runner's wake-up
// region in the next `prepare` runs it; but the hook first arrives at the region's end barrier (releasing the waiting
// master by hand), so `prepare` returns as fast as calibrated, and only then computes the staged repetition's rows
// into a buffer of its own (the outputs keep their poison), while ksearch reads /proc, checks the poison and sends
// the timed call; it then sleeps on an OpenMP lock (no CPU) until the call, which waits for the rows the worker has
// not finished and copies them all. No request's measurement covers that stretch. Defense: the other threads' CPU
// time over the whole repetition, read with them asleep at both ends, beyond what each may spend in the call and
// spinning around it, is charged to the call (`off_clock_charged_calls`): where the hidden rows take longer than that
// allowance (r64_c256 and r16_c1000, about 0.1 ms each), nearly every call is charged and the cheat is timed as slow as
// computing; work within it (some 0.05 ms per call on the 2-core VM: most of held_r5_c777) still escapes, as
// EVALUATION.md says. The charge itself is asserted by TrustedTimes.OtherThreadsWorkBetweenTheRequestsIsChargedToTheCall:
// this case's timings are not, for on a loaded host an evaluation of it once kept its speedup (r64_c256 at 0.017 ms
// against the seed's 0.145 ms, the full suite at -j2), which a quiet one does not (0.12-0.17 ms); why is not known yet.
// expect: passed
// expect-without-rules: passed
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {
constexpr int kChunk = 2;
struct Set {
  const float* x;
  float* y;
  float* scratch;
  unsigned char* in_scratch;  // per chunk
};
struct Mailbox {
  int64_t rows = 0, cols = 0;
  int sets = 0;
  Set set[16];
  char* worker = nullptr;
  char* main_thr = nullptr;
  uintptr_t team = 0, worker_task = 0;
  size_t task_off = 0;
  uintptr_t* pool = nullptr;
  unsigned* bar = nullptr;
  alignas(64) char decoy[1024];
  std::atomic<int> own_region{0};
  // the job of the staged set
  alignas(64) std::atomic<int> job_set{-1};
  std::atomic<int64_t> next_row{0};
  std::atomic<int64_t> done_rows{0};
  std::atomic<int> call_started{0};
  std::atomic<int> hook_running{0};
  omp_lock_t lock[2];
  std::atomic<int> parity{0};
  bool locks = false;
  std::atomic<long> hooks{0}, hidden_rows{0}, call_rows{0}, jobs{0}, calls{0};
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

void run_job(Mailbox* m, bool worker) {
  const int s = m->job_set.load(std::memory_order_acquire);
  if (s < 0) return;
  Set& st = m->set[s];
  const int64_t rows = m->rows, cols = m->cols;
  for (;;) {
    const int64_t r = m->next_row.fetch_add(kChunk);
    if (r >= rows) break;
    const int64_t e = r + kChunk < rows ? r + kChunk : rows;
    const bool direct = !worker || m->call_started.load(std::memory_order_acquire);
    for (int64_t i = r; i < e; ++i)
      softmax_row(st.x + i * cols, (direct ? st.y : st.scratch) + i * cols, cols);
    st.in_scratch[r / kChunk] = !direct;
    (worker && !direct ? m->hidden_rows : m->call_rows).fetch_add(e - r, std::memory_order_relaxed);
    m->done_rows.fetch_add(e - r, std::memory_order_acq_rel);
  }
}

void hook(void* ctx) {
  Mailbox* m = static_cast<Mailbox*>(ctx);
  m->hooks.fetch_add(1);
  // Become the team member the master thinks it woke.
  char* thr = m->worker;
  void (*fn)(void*);
  void* data;
  std::memcpy(&fn, m->decoy, 8);
  std::memcpy(&data, m->decoy + 8, 8);
  std::memcpy(thr + 16, m->decoy + 16, m->task_off + 8 - 16);
  reinterpret_cast<char**>(m->pool[0])[1] = thr;
  if (m->own_region.load() || !m->bar) {  // the candidate's own region: behave
    fn(data);
    return;
  }
  const int par = m->parity.load(std::memory_order_acquire);  // before the master can leave `prepare`
  m->hook_running.store(1, std::memory_order_release);
  fn(data);  // the runner's wake-up body (its counter lives on the master's stack)
  // Arrive at the region's end barrier now, not after the work: the master leaves `prepare` on time.
  unsigned* bar = m->bar;
  const unsigned gen0 = __atomic_load_n(&bar[1], __ATOMIC_ACQUIRE);
  if (__atomic_sub_fetch(&bar[17], 1u, __ATOMIC_ACQ_REL) == 0) {
    // the master was waiting: release it (awaited_final back to total, then the team barrier's release path)
    __atomic_store_n(&bar[17], bar[0], __ATOMIC_RELEASE);
    __atomic_store_n(&bar[16], 1u, __ATOMIC_RELEASE);
#pragma omp barrier
  }
  // The staged repetition: the set whose outputs hold the poison.
  int staged = -1;
  for (int s = 0; s < m->sets; ++s) {
    const Set& st = m->set[s];
    if (std::isnan(st.y[0]) && std::isnan(st.y[m->rows * m->cols - 1])) staged = s;
  }
  if (staged >= 0) {
    std::memset(m->set[staged].in_scratch, 0, size_t((m->rows + kChunk - 1) / kChunk));
    m->next_row.store(0);
    m->done_rows.store(0);
    m->call_started.store(0);
    m->job_set.store(staged, std::memory_order_release);
    m->jobs.fetch_add(1);
    run_job(m, true);
  }
  // Asleep (an OpenMP lock: a futex, no CPU) until the timed call has started: by then the master has left the
  // wake-up region's barrier, and our own arrival at it (after this return) must pass at once.
  omp_lock_t* l = &m->lock[par];
  omp_set_lock(l);
  omp_unset_lock(l);
  (void)gen0;
  __atomic_store_n(&bar[17], 1u, __ATOMIC_RELEASE);
  m->hook_running.store(0, std::memory_order_release);
}

void discover(Mailbox* m) {
  char* thr[2] = {nullptr, nullptr};
  unsigned* bar = nullptr;
#pragma omp parallel num_threads(2)
  {
    const int id = omp_get_thread_num();
    if (id < 2) thr[id] = find_thr(unsigned(id));
#pragma omp barrier
#pragma omp single
    if (thr[0] && thr[1]) {
      const uintptr_t team = *reinterpret_cast<uintptr_t*>(thr[1] + 16);
      const uintptr_t ws = *reinterpret_cast<uintptr_t*>(thr[1] + 24);
      bar = reinterpret_cast<unsigned*>(ws - 128);
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
  if (bar && bar[0] == 2) m->bar = bar;
}

void arm(Mailbox* m) {
  if (!m->pool || !m->bar || m->pool[2] != m->team) return;
  std::memcpy(m->decoy, m->worker, 512);
  char* thr = m->worker;
  void (*h)(void*) = hook;
  void* d = m;
  std::memcpy(thr + 16, &m->team, 8);
  std::memcpy(thr + m->task_off, &m->worker_task, 8);
  std::memcpy(thr + 8, &d, 8);
  std::memcpy(thr, &h, 8);
  reinterpret_cast<char**>(m->pool[0])[1] = m->decoy;
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
    m->job_set.store(-1);
  }
  int idx = -1;
  for (int s = 0; s < m->sets; ++s)
    if (m->set[s].y == y) idx = s;
  if (idx < 0 && m->sets < 16) {
    idx = m->sets++;
    m->set[idx] = {x, y, new float[size_t(rows * cols)], new unsigned char[size_t((rows + kChunk - 1) / kChunk)]()};
  }
  if (!m->pool) {
    m->own_region.store(1);
    discover(m);
    m->own_region.store(0);
  }
  if (!m->locks) {
    omp_init_lock(&m->lock[0]);
    omp_init_lock(&m->lock[1]);
    omp_set_lock(&m->lock[0]);
    m->locks = true;
  }
  if (m->hook_running.load(std::memory_order_acquire)) {  // release the worker waiting since `prepare`
    const int old = m->parity.load();
    omp_set_lock(&m->lock[old ^ 1]);
    m->parity.store(old ^ 1, std::memory_order_release);
    omp_unset_lock(&m->lock[old]);
  }
  if (idx >= 0 && m->job_set.load() == idx && m->set[idx].x == x) {
    // The worker has been computing this set since `prepare` woke it: wait for the rows it has not finished yet.
    while (m->done_rows.load(std::memory_order_acquire) < rows) {
    }
    const Set& st = m->set[idx];
    for (int64_t c = 0; c * kChunk < rows; ++c)
      if (st.in_scratch[c]) {
        const int64_t r = c * kChunk, e = r + kChunk < rows ? r + kChunk : rows;
        std::memcpy(y + r * cols, st.scratch + r * cols, size_t((e - r) * cols) * sizeof(float));
      }
  } else {
    while (m->hook_running.load(std::memory_order_acquire)) {
    }
    m->own_region.store(1);
#pragma omp parallel for num_threads(2) schedule(static)
    for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
    m->own_region.store(0);
  }
  m->job_set.store(-1);
  arm(m);
  if (m->calls.load() % 40 == 0)
    fprintf(stderr, "calls %ld hooks %ld jobs %ld hidden rows %ld call rows %ld (rows %ld)\n", m->calls.load(),
            m->hooks.load(), m->jobs.load(), m->hidden_rows.load(), m->call_rows.load(), (long)rows);
}
