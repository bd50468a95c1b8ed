// 5: points the runner's GOT entry for clock_gettime at a clock that stands still, so that every
// timing reads zero. The runner is linked with full RELRO: its GOT is read-only once loaded, and the
// write crashes the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <link.h>
namespace {
int frozen_clock(clockid_t, timespec* ts) {
  ts->tv_sec = 0;
  ts->tv_nsec = 0;
  return 0;
}

// Finds the runner's GOT slot for clock_gettime through its dynamic section (relocation tables).
int find_clock_slot(dl_phdr_info* info, size_t, void* data) {
  const ElfW(Addr) base = info->dlpi_addr;
  auto absolute = [&](ElfW(Addr) p) { return p < base ? p + base : p; };  // relocated by the loader or not
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + info->dlpi_phdr[i].p_vaddr);
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* tables[2] = {};
  size_t sizes[2] = {};
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(absolute(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_JMPREL) tables[0] = reinterpret_cast<const ElfW(Rela)*>(absolute(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_PLTRELSZ) sizes[0] = dyn->d_un.d_val;
    if (dyn->d_tag == DT_RELA) tables[1] = reinterpret_cast<const ElfW(Rela)*>(absolute(dyn->d_un.d_ptr));
    if (dyn->d_tag == DT_RELASZ) sizes[1] = dyn->d_un.d_val;
  }
  for (int t = 0; t < 2 && symbols && names; ++t)
    for (size_t i = 0; tables[t] && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      if (std::strcmp(names + symbols[ELF64_R_SYM(r.r_info)].st_name, "clock_gettime") == 0)
        *static_cast<uintptr_t*>(data) = base + r.r_offset;
    }
  return 1;  // the main program (the runner) comes first
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  uintptr_t slot = 0;
  dl_iterate_phdr(find_clock_slot, &slot);
  if (slot == 0) return;
  *reinterpret_cast<void**>(slot) = reinterpret_cast<void*>(&frozen_clock);
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
