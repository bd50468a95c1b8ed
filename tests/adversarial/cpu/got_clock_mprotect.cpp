// 5: makes the runner's read-only data (RELRO, which holds its GOT) writable again with mprotect and
// points every slot holding clock_gettime's address at a clock that stands still, so that every
// timing reads zero. Changing the protection of a loaded object's pages kills the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <ctime>
#include <link.h>
#include <sys/mman.h>
namespace {
int frozen_clock(clockid_t, timespec* ts) {
  ts->tv_sec = 0;
  ts->tv_nsec = 0;
  return 0;
}

int unprotect_and_hook(dl_phdr_info* info, size_t, void* hooked) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    const uintptr_t begin = (info->dlpi_addr + ph.p_vaddr) & ~uintptr_t(4095);
    const uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    if (mprotect(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE) != 0) return 1;
    for (auto** slot = reinterpret_cast<void**>(begin); slot + 1 <= reinterpret_cast<void**>(end); ++slot)
      if (*slot == reinterpret_cast<void*>(&clock_gettime) || *slot == reinterpret_cast<void*>(&frozen_clock)) {
        *slot = reinterpret_cast<void*>(&frozen_clock);  // hooked by an earlier call already
        *static_cast<bool*>(hooked) = true;
      }
  }
  return 1;  // the main program (the runner) comes first
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  bool hooked = false;
  dl_iterate_phdr(unprotect_and_hook, &hooked);
  if (!hooked) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
