#include "runner/platform/rlimits.hpp"

#include <sys/resource.h>

namespace ksearch::runner {

void set_rlimits(uint64_t memory_bytes, uint64_t cpu_seconds) {
  auto set = [](int resource, rlim_t value) {
    rlimit lim{value, value};
    setrlimit(resource, &lim);
  };
  if (memory_bytes) set(RLIMIT_AS, memory_bytes);
  if (cpu_seconds) set(RLIMIT_CPU, cpu_seconds);
  set(RLIMIT_FSIZE, 0);
  set(RLIMIT_CORE, 0);
}

}  // namespace ksearch::runner
