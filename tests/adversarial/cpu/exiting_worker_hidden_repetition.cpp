// 4, 5: useful off-clock work by an OpenMP worker that then ends itself (exiting_worker_uncharged.cpp shows the CPU
// time of an exited thread is never charged). In the first timed repetition's call the worker leaves the parallel
// region without waiting at its end barrier, sleeps in 0.3 ms naps (asleep whenever ksearch looks), and when ksearch
// has staged the next repetition (its set's outputs poisoned, its inputs changed) computes that repetition's softmax
// into a buffer of its own between the staging and the call, then ends (SYS_exit). The next call only copies the
// buffer in when the inputs match (else computes). One repetition per pool worker; with a team of 22 or more, enough of
// them to move the median (1.76x the seed on a 24-thread team). The CPU time of a thread that ends leaves the sums of
// the runner's threads that ksearch reads: a thread that ends during the timed repetitions is refused.
// expect: rejected
// expect-without-rules: rejected
// expect-message: ended during the timed repetitions
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>


namespace {
struct ElfHeader {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version;
  uint64_t entry, phoff, shoff;
  uint32_t flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct ProgramHeader {
  uint32_t type, flags;
  uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct DynamicEntry {
  int64_t tag;
  uint64_t value;
};
struct Symbol {
  uint32_t name;
  unsigned char info, other;
  uint16_t section;
  uint64_t value, size;
};
void* find_symbol(const void* inside, const char* name) {
  uintptr_t base = uintptr_t(inside) & ~uintptr_t(4095);
  while (std::memcmp(reinterpret_cast<const void*>(base), "\177ELF", 4) != 0) base -= 4096;
  const auto* header = reinterpret_cast<const ElfHeader*>(base);
  const auto* program = reinterpret_cast<const ProgramHeader*>(base + header->phoff);
  const DynamicEntry* dynamic = nullptr;
  for (int i = 0; i < header->phnum; ++i)
    if (program[i].type == 2) dynamic = reinterpret_cast<const DynamicEntry*>(base + program[i].vaddr);
  uintptr_t symbols = 0, strings = 0;
  for (; dynamic->tag != 0; ++dynamic) {
    const uintptr_t at = dynamic->value < base ? base + dynamic->value : dynamic->value;
    if (dynamic->tag == 5) strings = at;
    if (dynamic->tag == 6) symbols = at;
  }
  for (auto* s = reinterpret_cast<const Symbol*>(symbols); uintptr_t(s) < strings; ++s)
    if (s->value != 0 && std::strcmp(reinterpret_cast<const char*>(strings + s->name), name) == 0)
      return reinterpret_cast<void*>(base + s->value);
  return nullptr;
}

// libgomp's team barrier, found from this thread's gomp_thread.ts in static TLS (escaped_omp_worker.cpp).
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


struct Job {
  std::atomic<int> phase{0};  // 0 idle, 1 waiting for the staged inputs, 2 result ready, 3 gave up
  const float* x = nullptr;
  float* y = nullptr;
  int64_t rows = 0, cols = 0;
  uint64_t old_fingerprint = 0, fingerprint = 0;
  float* result = nullptr;
};
struct State {  // kept across calls in stdout's unused padding, which no reset reaches
  int64_t calls = 0;
  const float* seen_x[8] = {};
  float* seen_y[8] = {};
  Job job;
  int64_t used_worker = 0, hits = 0;
};
State* state() {
  State* s;
  std::memcpy(&s, stdout->_unused2, sizeof s);
  if (!s) {
    s = new State();
    std::memcpy(stdout->_unused2, &s, sizeof s);
  }
  return s;
}
uint64_t fingerprint(const float* x, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, x + i, 4);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}
void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / sum;
  }
}
// The escaped worker: sleeps until ksearch has staged the next repetition's inputs into the set it will use (its
// outputs poisoned, its inputs changed), computes them into a buffer of its own, and ends itself.
[[noreturn]] void compute_next_then_leave(Job* j) {
  auto raw = reinterpret_cast<long (*)(long, ...)>(find_symbol(reinterpret_cast<const void*>(&std::memcpy), "sys" "call"));
  const long nap[2] = {0, 300000};  // 0.3 ms: asleep whenever ksearch looks, twice 0.1 ms apart
  const int64_t n = j->rows * j->cols;
  for (int tries = 0; tries < 200000; ++tries) {
    raw(35 /*SYS_nanosleep*/, nap, nullptr);
    if (!std::isnan(j->y[0]) || !std::isnan(j->y[n - 1])) continue;  // not poisoned yet: not staged
    if (j->x[0] == 0.0f) continue;
    const uint64_t f = fingerprint(j->x, n);
    if (f == j->old_fingerprint) continue;  // the old inputs still
    softmax_rows(j->x, j->result, j->rows, j->cols);
    j->fingerprint = f;
    j->phase.store(2, std::memory_order_release);
    for (;;) raw(60 /*SYS_exit: this thread only*/, 0L);
  }
  j->phase.store(3);
  for (;;) raw(60, 0L);
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  State* s = state();
  const int64_t call = ++s->calls;
  const int64_t n = rows * cols;
  s->seen_x[call % 8] = x;
  s->seen_y[call % 8] = y;
  Job& j = s->job;
  // A result the worker computed off the clock for exactly these inputs: copy it (the call's only work).
  if (j.phase.load(std::memory_order_acquire) == 2 && j.x == x && j.y == y && j.rows == rows && j.cols == cols &&
      fingerprint(x, n) == j.fingerprint) {
    std::memcpy(y, j.result, sizeof(float) * size_t(n));
    j.phase.store(0);
    ++s->hits;
    std::printf("probe: call %lld answered from the exited worker's result\n", (long long)call);
    return;
  }
  softmax_rows(x, y, rows, cols);
  // Call 6 is the first workload's first timed repetition (3 trials, 2 warm-ups); the next one (call 7) uses the set
  // that call 4 used (three rotating sets).
  if (call == 6 && !s->used_worker) {
    s->used_worker = 1;
    j.x = s->seen_x[4 % 8];
    j.y = s->seen_y[4 % 8];
    j.rows = rows;
    j.cols = cols;
    j.old_fingerprint = fingerprint(j.x, n);
    j.result = new float[size_t(n)];
    j.phase.store(1);
    std::atomic<int> left{0};
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
      if (unsigned* bar = team_barrier()) {
        __atomic_fetch_sub(&bar[17], 1u, __ATOMIC_ACQ_REL);  // arrives at the end barrier, never to wait there
        left.store(1);
        compute_next_then_leave(&j);
      }
      left.store(-1);
    } else {
      while (left.load() == 0) {
      }
    }
  }
}
