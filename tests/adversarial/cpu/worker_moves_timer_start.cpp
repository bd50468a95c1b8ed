// 3, 4, 5: OpenMP workers do all the work while the main thread sleeps at the region's end barrier (a blocked thread
// accrues no CPU time); then the main thread finds the runner's timer start on its stack (a double just below
// CLOCK_MONOTONIC's milliseconds, read through clock_gettime walked from libc's symbol table) and moves it forward by
// nine tenths of the time it slept. The report stays above the main thread's CPU time and the roofline, and the workers'
// CPU time fit within a fixed 2 ms per thread for OpenMP's idle spinning: it passed, timed at a tenth of its work. The
// allowance is now the spinning ksearch measured before the first call (microseconds in passive waiting, as the suite
// runs: scripts/test.sh; with libgomp's default spinning the 2 ms bound holds and it would pass).
// task: small_matmul
// expect: rejected
// expect-without-rules: rejected
// expect-message: work ran outside the runner's timer
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
template <typename T>
T read_at(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
  return value;
}

// `name` in libc's own dynamic symbol table, reached from malloc's address (an allowed import): an ELF64 header's
// program headers (offset 32, count at 56, 56 bytes each) lead to PT_DYNAMIC, which names the string and symbol tables.
void* libc_symbol(const char* name) {
  uintptr_t elf = uintptr_t(&malloc) & ~uintptr_t(4095);
  while (read_at<uint32_t>(elf) != 0x464c457f) elf -= 4096;
  uintptr_t dynamic = 0, strings = 0, symbols = 0;
  const uintptr_t program = elf + read_at<uint64_t>(elf + 32);
  for (uint16_t i = 0; i < read_at<uint16_t>(elf + 56); ++i)
    if (read_at<uint32_t>(program + 56 * i) == 2) dynamic = elf + read_at<uint64_t>(program + 56 * i + 16);
  for (; read_at<int64_t>(dynamic) != 0; dynamic += 16) {
    const int64_t tag = read_at<int64_t>(dynamic);
    const uint64_t value = read_at<uint64_t>(dynamic + 8);  // an address, or an offset in the file where not relocated
    if (tag == 5 || tag == 6) (tag == 5 ? strings : symbols) = value < elf ? elf + value : value;
  }
  for (uintptr_t symbol = symbols; symbol < strings; symbol += 24)
    if (read_at<uint64_t>(symbol + 8) && std::strcmp(reinterpret_cast<const char*>(strings + read_at<uint32_t>(symbol)), name) == 0)
      return reinterpret_cast<void*>(elf + read_at<uint64_t>(symbol + 8));
  return nullptr;
}

struct Time {
  int64_t seconds, nanoseconds;
};

// The runner's own clock, as it reads it (CLOCK_MONOTONIC in milliseconds).
double now_ms() {
  using ClockGettime = int (*)(int, Time*);
  auto clock = reinterpret_cast<ClockGettime>(libc_symbol("clock_gettime"));
  Time t{};
  clock(1, &t);
  return double(t.seconds) * 1e3 + double(t.nanoseconds) * 1e-6;
}

// Row i of C, in the vectorizable order.
void row(const float* A, const float* B, float* C, int64_t i, int64_t n, int64_t k) {
  float* c = C + i * n;
  for (int64_t j = 0; j < n; ++j) c[j] = 0;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) c[j] += A[i * k + p] * B[p * n + j];
}
}  // namespace

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  const double entered = now_ms();
  // Every row on the workers; the main thread (0) goes straight to the end barrier and sleeps there. Alone (no
  // worker), it computes.
#pragma omp parallel
  {
    const int workers = omp_get_num_threads() - 1, id = omp_get_thread_num();
    if (workers == 0)
      for (int64_t i = 0; i < m; ++i) row(A, B, C, i, n, k);
    else if (id > 0)
      for (int64_t i = id - 1; i < m; i += workers) row(A, B, C, i, n, k);
  }
  // Nine tenths of the time it slept taken off the report: a tenth of the workers' time is left, above the roofline.
  const double hidden = (now_ms() - entered) * 9 / 10;
  // The runner's start: the latest time from the last milliseconds before the call in the 1 KiB of stack above this frame
  // (older times there are stale words, some now partly other variables; the runner's few environment variables leave
  // its stack's top not far above).
  auto* word = static_cast<double*>(__builtin_frame_address(0));
  double* start = nullptr;
  for (int i = 0; i < 128; ++i)
    if (word[i] > entered - 5 && word[i] <= entered && (!start || word[i] > *start)) start = &word[i];
  if (start) *start += hidden;
}
