#pragma once
// Evicting a buffer's cache lines from every level of the host's caches, for cold-cache timing that leaves
// everything else (the caller's code, stack and other data) cached; x86-64 only. Header-only: bench/cpu/harness.cpp,
// built without ksearch's libraries, times with it too.
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ksearch::core {

#if defined(__x86_64__)
namespace eviction_detail {
constexpr uintptr_t kLine = 64;

inline bool has_clflushopt() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_CLFLUSHOPT);
}

// clflushopt evicts lines without ordering them against each other (clflush does), so many are in flight.
__attribute__((target("clflushopt"))) inline void evict_unordered(const char* begin, const char* end) {
  for (const char* p = begin; p < end; p += kLine) _mm_clflushopt(const_cast<char*>(p));
}

inline void evict_ordered(const char* begin, const char* end) {
  for (const char* p = begin; p < end; p += kLine) _mm_clflush(p);
}
}  // namespace eviction_detail

// Evicts every cache line of [data, data + bytes) from all cache levels (written back where dirty); done on return.
inline void evict_cache_lines(const void* data, size_t bytes) {
  using namespace eviction_detail;
  static const bool unordered = has_clflushopt();
  if (bytes == 0) return;
  const auto* end = static_cast<const char*>(data) + bytes;
  const auto* begin = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(data) & ~(kLine - 1));
  if (unordered) evict_unordered(begin, end);
  else evict_ordered(begin, end);
  _mm_mfence();
}
#endif

}  // namespace ksearch::core
