// 4, 5, 7: points libstdc++'s GOT slot for malloc at its own hook. libstdc++ is linked with partial RELRO, so
// the slot stays writable, and the runner allocates through it between repetitions (parsing the next command,
// once ksearch has staged its inputs): the hook computes each staged repetition's outputs there, off the clock,
// and the timed call finds them done. libstdc++ is found by walking back from operator new's address to its ELF
// header; the jobs are kept in libc's `optarg`, which no reset of the candidate's own data reaches. The runner
// holds the GOT slots of every library loaded beside the candidate and fails the run at the first change.
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: the candidate changed the GOT slot of
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

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
struct Relocation {
  uint64_t offset, info;
  int64_t addend;
};

struct Library {
  uintptr_t base = 0, symbols = 0, strings = 0, plt = 0, plt_bytes = 0;
};

// The dynamic tables of the library that holds `inside`, read from its own headers.
Library library_of(const void* inside) {
  Library l;
  l.base = uintptr_t(inside) & ~uintptr_t(4095);
  while (std::memcmp(reinterpret_cast<const void*>(l.base), "\177ELF", 4) != 0) l.base -= 4096;
  const auto* header = reinterpret_cast<const ElfHeader*>(l.base);
  const auto* program = reinterpret_cast<const ProgramHeader*>(l.base + header->phoff);
  const DynamicEntry* dynamic = nullptr;
  for (int i = 0; i < header->phnum; ++i)
    if (program[i].type == 2) dynamic = reinterpret_cast<const DynamicEntry*>(l.base + program[i].vaddr);
  for (; dynamic->tag != 0; ++dynamic) {
    const uintptr_t at = dynamic->value < l.base ? l.base + dynamic->value : dynamic->value;
    if (dynamic->tag == 5) l.strings = at;
    if (dynamic->tag == 6) l.symbols = at;
    if (dynamic->tag == 23) l.plt = at;
    if (dynamic->tag == 2) l.plt_bytes = dynamic->value;
  }
  return l;
}

void* find_symbol(const Library& l, const char* name) {
  for (auto* s = reinterpret_cast<const Symbol*>(l.symbols); uintptr_t(s) < l.strings; ++s)
    if (s->value != 0 && std::strcmp(reinterpret_cast<const char*>(l.strings + s->name), name) == 0)
      return reinterpret_cast<void*>(l.base + s->value);
  return nullptr;
}

void** plt_slot(const Library& l, const char* name) {
  const auto* relocations = reinterpret_cast<const Relocation*>(l.plt);
  for (size_t i = 0; i < l.plt_bytes / sizeof(Relocation); ++i) {
    const auto* symbol = reinterpret_cast<const Symbol*>(l.symbols) + (relocations[i].info >> 32);
    if (std::strcmp(reinterpret_cast<const char*>(l.strings + symbol->name), name) == 0)
      return reinterpret_cast<void**>(l.base + relocations[i].offset);
  }
  return nullptr;
}

// Back to front: y[0] is the last element written, so a call that finds it written finds all of them.
void compute(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = rows - 1; r >= 0; --r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = cols - 1; c >= 0; --c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}

struct Job {
  const float* x;
  float* y;
  int64_t rows, cols;
};
struct Hook {  // on the heap, found again through libc's `optarg`
  void* (*malloc)(size_t);
  Job jobs[16];
  int count = 0;
};
Hook** persistent_hook() {
  return static_cast<Hook**>(find_symbol(library_of(reinterpret_cast<void*>(&malloc)), "optarg"));
}

void* hooked_malloc(size_t bytes) {
  Hook* hook = *persistent_hook();
  for (int i = 0; i < hook->count; ++i) {
    const Job& j = hook->jobs[i];
    if (std::isnan(j.y[0]) && std::isnan(j.y[j.rows * j.cols - 1])) compute(j.x, j.y, j.rows, j.cols);  // staged
  }
  return hook->malloc(bytes);
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (!std::isnan(y[0])) return;  // the hook was here first
  compute(x, y, rows, cols);
  Hook** persistent = persistent_hook();
  if (!*persistent) {
    const Library cxx = library_of(reinterpret_cast<void*>(static_cast<void* (*)(size_t)>(&::operator new)));
    void** slot = plt_slot(cxx, "malloc");
    if (!slot) return;
    auto* hook = new Hook;
    hook->malloc = reinterpret_cast<void* (*)(size_t)>(*slot);
    *persistent = hook;
    *slot = reinterpret_cast<void*>(&hooked_malloc);
  }
  Hook& hook = **persistent;
  for (int i = 0; i < hook.count; ++i)
    if (hook.jobs[i].x == x && hook.jobs[i].y == y) return;
  if (hook.count < 16) hook.jobs[hook.count++] = {x, y, rows, cols};
}
