#pragma once
// runner/host: what the parent side (ksearch's process) needs from the operating system to run a
// runner, implemented per platform under runner/platform/<os>/ (docs/EVALUATION.md, "Platforms").
#include <sys/types.h>

#include <optional>

#include "core/fd.hpp"

namespace ksearch::runner {

// An anonymous, resizable shared-memory file for the tensors (close-on-exec; the runner gets it by
// an explicit dup). Throws SystemError.
UniqueFd anonymous_shared_memory(const char* name);

// CPU time in milliseconds that the main thread of process `pid` has used, read once that thread
// is blocked so that its last run is included; nullopt where the platform cannot tell (the
// evaluator then holds reports against wall time only).
std::optional<double> blocked_main_thread_cpu_ms(pid_t pid);

// CPU time in milliseconds that all threads of process `pid` have used (a running thread's current slice not yet
// counted), and how many threads it has; nullopt where the platform cannot tell.
struct ProcessCpu {
  double ms = 0;
  int threads = 0;
};
std::optional<ProcessCpu> process_cpu(pid_t pid);

}  // namespace ksearch::runner
