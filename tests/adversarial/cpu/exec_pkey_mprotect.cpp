// 5: writes machine code into fresh memory and makes it executable with a raw pkey_mprotect (the
// plain mprotect and mmap are refused). It computes correctly only when the generated code runs, so a
// wrong_answer shows the sandbox stopped it.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#if defined(__x86_64__)
  const unsigned char code[] = {0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3};  // mov eax, 1; ret
#else
  const uint32_t code[] = {0x52800020, 0xd65f03c0};  // mov w0, #1; ret
#endif
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;
  std::memcpy(page, code, sizeof code);
  __builtin___clear_cache(static_cast<char*>(page), static_cast<char*>(page) + sizeof code);
  // A raw call: glibc's wrapper turns key -1 (no key) into a plain mprotect.
  if (syscall(SYS_pkey_mprotect, page, 4096, PROT_READ | PROT_EXEC, -1) != 0) return;
  if (reinterpret_cast<int (*)()>(page)() != 1) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
