#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ksearch::runner {

// Resource limits; RLIMIT_FSIZE is 0, so no file can grow.
void apply_resource_limits(uint64_t memory_bytes, uint64_t cpu_seconds);
// Landlock: from now on the process may only read the given paths (and system libraries) and write
// nowhere. Returns a description of what was applied (or why not) for the evaluation log.
std::string restrict_filesystem(const std::vector<std::filesystem::path>& readable);
// Seccomp stage 1 (before the candidate is loaded): no processes, no network, no ptrace, no
// writes through new file descriptors. Stage 2 (after loading): also no file opens and no new
// executable memory, so the candidate cannot read secrets nor patch code.
void apply_syscall_filter(bool after_load, bool strict);

}  // namespace ksearch::runner
