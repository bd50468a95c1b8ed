// expect: runtime_error: halves the timer: cudaGetDriverEntryPointByVersion (found in libcudart's symbol table by walking back from an allowed import to its ELF header, so no rule on names sees it) gives the driver's cuEventElapsedTime, and every word of libcudart's writable data that holds it is pointed at the candidate's own function, which calls the driver and reports half; the runner holds the code pointers of the libraries beside the candidate and checks libcudart's right after each call, before its timer reads the events.
// expect-without-rules: runtime_error
// expect-message: the candidate changed a pointer to
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

using Elapsed = int (*)(float*, void*, void*);
Elapsed driver_elapsed = nullptr;

int half_elapsed(float* ms, void* start, void* end) {
  if (!driver_elapsed) return 0;  // the runner reset the candidate's data since the redirection
  const int status = driver_elapsed(ms, start, end);
  *ms *= 0.5f;
  return status;
}

// Points every word of libcudart's writable segments that holds one of `targets` at half_elapsed.
void redirect(const void* inside_cudart, void* const* targets, int count) {
  uintptr_t base = reinterpret_cast<uintptr_t>(inside_cudart) & ~uintptr_t(4095);
  for (;; base -= 4096) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(base);
    if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') break;
  }
  const auto* header = reinterpret_cast<const ElfHeader*>(base);
  const auto* program = reinterpret_cast<const ProgramHeader*>(base + header->phoff);
  for (int i = 0; i < header->phnum; ++i) {
    if (program[i].type != 1 || !(program[i].flags & 2)) continue;  // PT_LOAD, writable
    const uintptr_t begin = (base + program[i].vaddr + 7) & ~uintptr_t(7), end = base + program[i].vaddr + program[i].memsz;
    for (uintptr_t word = begin; word + 8 <= end; word += 8)
      for (int t = 0; t < count; ++t)
        if (targets[t] && *reinterpret_cast<void**>(word) == targets[t]) {
          // The RELRO part of the segment is read-only: only words outside it are written.
          *reinterpret_cast<volatile void**>(word) = reinterpret_cast<void*>(&half_elapsed);
        }
  }
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
  using EntryPoint = cudaError_t (*)(const char*, void**, unsigned, unsigned long long, void*);
  const auto entry_point = reinterpret_cast<EntryPoint>(
      exported_function(reinterpret_cast<const void*>(&cudaGetLastError), "cudaGetDriverEntryPointByVersion"));
  if (entry_point) {
    void* versions[3] = {};
    const unsigned cuda_versions[3] = {11000, 12000, 13000};
    for (int v = 0; v < 3; ++v) entry_point("cuEventElapsedTime", &versions[v], cuda_versions[v], 0, nullptr);
    if (!driver_elapsed) driver_elapsed = reinterpret_cast<Elapsed>(versions[2] ? versions[2] : versions[0]);
    if (driver_elapsed) redirect(reinterpret_cast<const void*>(&cudaGetLastError), versions, 3);
  }
  softmax_rows<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}
