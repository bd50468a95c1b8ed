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

// Descriptors opened before drop_privileges through which paths stay reachable afterwards: the
// unprivileged user cannot search a build folder under /root (mode 700), but /proc/self/fd/N/...
// reaches it through a descriptor opened while still root.
class PathHandles {
 public:
  explicit PathHandles(const std::vector<std::filesystem::path>& paths);
  ~PathHandles();
  PathHandles(const PathHandles&) = delete;
  PathHandles& operator=(const PathHandles&) = delete;
  // `path` itself when it lies under none of the paths.
  std::string reachable(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, int>> handles_;
};

// Drops every capability (bounding, ambient, effective, permitted, inheritable) and, when running as
// root and `switch_user`, switches every thread to uid and gid 65534 (nobody, no supplementary groups),
// so the candidate can neither raise its limits nor signal, renice or ptrace other root processes.
// Returns what was applied.
std::string drop_privileges(bool switch_user);

// Seccomp stage 1 (before the candidate is loaded): no processes, no network, no ptrace, no writes
// through new file descriptors, no signals outside the runner, no scheduling, priority or rlimit
// changes, no prctl beyond harmless queries. Stage 2 (after loading) adds, when `strict`: no file
// opens, no new executable memory and no change to the mappings of loaded code (the runner's
// read-only GOT stays read-only), so the candidate can neither read secrets nor patch code. When
// `strict`, every stage also covers the threads started before it. Returns what was applied.
std::string apply_syscall_filter(bool after_load, bool strict);

}  // namespace ksearch::runner
