#pragma once
// runner/host: what the parent side (ksearch's process) needs from the operating system to run a
// runner, implemented per platform under runner/platform/<os>/ (docs/EVALUATION.md, "Platforms").
#include <sys/types.h>

#include <chrono>
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
// counted), those but its main thread, and how many threads it has; nullopt where the platform cannot tell.
struct ProcessCpu {
  double ms = 0;
  double other_threads_ms = 0;
  int threads = 0;
};
std::optional<ProcessCpu> process_cpu(pid_t pid);

// Waits until every thread of process `pid` but its main one is blocked, its CPU time unchanged since the previous
// look (an OpenMP worker asleep at its team's dock once its spinning is over), at most `bound`. Returns their CPU
// time in milliseconds then, or nullopt where a thread was still running at the bound (`*still_running` true) or
// the platform cannot tell (false).
std::optional<double> idle_other_threads_cpu_ms(pid_t pid, std::chrono::milliseconds bound, bool* still_running);

}  // namespace ksearch::runner
