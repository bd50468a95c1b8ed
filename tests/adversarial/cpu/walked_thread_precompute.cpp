// 4, 5, 7: reaches pthread_create without naming or importing it (walks from malloc's address, an allowed
// import, back to libc's ELF header and reads its dynamic symbol table). The thread outlives the call and
// computes each repetition's outputs as soon as ksearch has staged its inputs (the poison is in place),
// before the timed call starts, which then only spins long enough to look plausible. The runner refuses
// new threads after loading the candidate, however their creation was reached: it computes in the call.
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

void* precompute(void* arg) {
  auto* jobs = static_cast<Jobs*>(arg);
  for (;;) {
    for (int i = 0; i < jobs->count.load(); ++i)
      if (staged(jobs->list[i])) compute(jobs->list[i].x, jobs->list[i].y, jobs->list[i].rows, jobs->list[i].cols);
    _mm_pause();
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const volatile float* first = y;
  if (!std::isnan(y[rows * cols - 1])) {  // the thread was here first
    while (std::isnan(*first)) _mm_pause();
    for (volatile int spin = 0; spin < 8000; spin = spin + 1) {
    }
    return;
  }
  compute(x, y, rows, cols);
  auto** persistent = static_cast<Jobs**>(find_symbol(reinterpret_cast<void*>(&malloc), "optarg"));
  if (!*persistent) {
    using Create = int (*)(unsigned long*, const void*, void* (*)(void*), void*);
    auto create = reinterpret_cast<Create>(find_symbol(reinterpret_cast<void*>(&malloc), "pthread_create"));
    auto* jobs = new Jobs;
    unsigned long thread = 0;
    if (create(&thread, nullptr, precompute, jobs) != 0) return;  // refused: every call computes
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
