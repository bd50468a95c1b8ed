// 4, 5, 7: a POSIX timer's signal handler computes each repetition's outputs as soon as ksearch has staged
// its inputs (the poison is in place), before the timed call starts: on the runner's main thread while it
// waits for the next command, off the timed call's clock and CPU time. timer_create and sigaction are
// reached without naming or importing them (a walk from malloc's address, an allowed import, to libc's
// dynamic symbol table). The runner refuses signal handlers after loading the candidate: it computes in the call.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <immintrin.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

// The address of `name` in the library that holds `inside`, from that library's own symbol table.
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
struct Jobs {  // on the heap, found again through libc's `optarg`: the runner resets only the candidate's data
  Job list[16];
  std::atomic<int> count{0};
};

bool staged(const Job& j) { return std::isnan(j.y[0]) && std::isnan(j.y[j.rows * j.cols - 1]); }

// Signal handler with SA_SIGINFO: the timer's value (the jobs) is in the siginfo, at the offset of si_value.
void precompute(int, void* info, void*) {
  auto* jobs = *reinterpret_cast<Jobs**>(static_cast<char*>(info) + 24);
  for (int i = 0; i < jobs->count.load(); ++i)
    if (staged(jobs->list[i])) compute(jobs->list[i].x, jobs->list[i].y, jobs->list[i].rows, jobs->list[i].cols);
}

struct SignalAction {  // glibc's struct sigaction
  void (*handler)(int, void*, void*);
  uint64_t mask[16];
  int flags;
  void (*restorer)();
};
struct SignalEvent {  // struct sigevent, SIGEV_SIGNAL
  void* value;
  int signal, notify;
  int padding[12];
};
struct TimerSpec {
  long interval_s, interval_ns, value_s, value_ns;
};

bool start_timer(Jobs* jobs) {
  void* libc = reinterpret_cast<void*>(&malloc);
  using Action = int (*)(int, const SignalAction*, SignalAction*);
  using Create = int (*)(int, SignalEvent*, void**);
  using Arm = int (*)(void*, int, const TimerSpec*, TimerSpec*);
  const SignalAction action{precompute, {}, 0x10000004 /* SA_RESTART | SA_SIGINFO */, nullptr};
  if (reinterpret_cast<Action>(find_symbol(libc, "sigaction"))(14 /* SIGALRM */, &action, nullptr) != 0) return false;
  SignalEvent event{jobs, 14, 0, {}};
  void* timer = nullptr;
  if (reinterpret_cast<Create>(find_symbol(libc, "timer_create"))(1 /* CLOCK_MONOTONIC */, &event, &timer) != 0) return false;
  const TimerSpec every_20us{0, 20000, 0, 20000};
  return reinterpret_cast<Arm>(find_symbol(libc, "timer_settime"))(timer, 0, &every_20us, nullptr) == 0;
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const volatile float* first = y;
  if (!std::isnan(y[rows * cols - 1])) {  // the handler was here first
    while (std::isnan(*first)) _mm_pause();
    for (volatile int spin = 0; spin < 8000; spin = spin + 1) {
    }
    return;
  }
  compute(x, y, rows, cols);
  auto** persistent = static_cast<Jobs**>(find_symbol(reinterpret_cast<void*>(&malloc), "optarg"));
  if (!*persistent) {
    auto* jobs = new Jobs;
    if (!start_timer(jobs)) return;  // refused: every call computes
    *persistent = jobs;
  }
  Jobs& jobs = **persistent;
  for (int i = 0; i < jobs.count.load(); ++i)
    if (jobs.list[i].x == x && jobs.list[i].y == y) return;
  if (jobs.count.load() < 16) {
    jobs.list[jobs.count.load()] = {x, y, rows, cols};
    jobs.count.fetch_add(1);
  }
}
