// expect: passed: the copy runs on a non-blocking stream created through cudaStreamCreateWithFlags, which no rule sees: the candidate finds it in libcudart's own symbol table, walking back in memory from an allowed import to the library's ELF header; the timer runs until the whole device is idle, so the work is timed all the same.
// expect-without-rules: passed
// Import and name checks cannot see what code reads from its own process's memory: any exported
// function of any loaded library is reachable this way (docs/EVALUATION.md, known limits).
#include <cuda_runtime.h>
#include <stdint.h>

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

bool same_text(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// The exported function `wanted` of the library whose code holds `inside`.
void* exported_function(const void* inside, const char* wanted) {
  uintptr_t base = reinterpret_cast<uintptr_t>(inside) & ~uintptr_t(4095);
  for (;; base -= 4096) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(base);
    if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') break;
  }
  const auto* header = reinterpret_cast<const ElfHeader*>(base);
  const auto* program = reinterpret_cast<const ProgramHeader*>(base + header->phoff);
  const DynamicEntry* dynamic = nullptr;
  for (int i = 0; i < header->phnum; ++i)
    if (program[i].type == 2) dynamic = reinterpret_cast<const DynamicEntry*>(base + program[i].vaddr);
  if (!dynamic) return nullptr;
  uintptr_t symbols = 0, names = 0;
  for (; dynamic->tag; ++dynamic) {
    if (dynamic->tag == 6) symbols = dynamic->value;
    if (dynamic->tag == 5) names = dynamic->value;
  }
  if (symbols < base) symbols += base;  // the loader relocates these entries on most targets
  if (names < base) names += base;
  for (auto* s = reinterpret_cast<const Symbol*>(symbols); reinterpret_cast<uintptr_t>(s) < names; ++s)
    if (s->section && same_text(reinterpret_cast<const char*>(names + s->name), wanted))
      return reinterpret_cast<void*>(base + s->value);
  return nullptr;
}

}  // namespace

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  using CreateStream = cudaError_t (*)(cudaStream_t*, unsigned);
  const auto create = reinterpret_cast<CreateStream>(
      exported_function(reinterpret_cast<const void*>(&cudaGetLastError), "cudaStreamCreateWithFlags"));
  cudaStream_t hidden = stream;
  if (create) create(&hidden, 1u);
  softmax_rows<<<unsigned((rows + 127) / 128), 128, 0, hidden>>>(x, y, rows, cols);
}
