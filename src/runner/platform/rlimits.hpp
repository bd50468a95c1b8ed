#pragma once
// The POSIX resource limits every platform's sandbox starts with (runner/platform/*/sandbox.cpp).
#include <cstdint>

namespace ksearch::runner {

// Address space and CPU time as given (0: unlimited), no file may grow (RLIMIT_FSIZE 0), no core dumps.
void set_rlimits(uint64_t memory_bytes, uint64_t cpu_seconds);

}  // namespace ksearch::runner
