// runner/sandbox, portable fallback (macOS, BSDs): resource limits only. Weaker than Linux, and
// documented as such (docs/EVALUATION.md, "Platforms"): no filesystem or system-call filter, no
// change of user, no parent-death signal (the runner still exits when ksearch closes its command
// pipe), and no reset of a candidate's writable data between calls.
#include "runner/sandbox.hpp"

#include <dirent.h>

#include <string>

#include "runner/platform/rlimits.hpp"

namespace ksearch::runner {

namespace {
constexpr const char* kFallback = " on this platform (posix fallback)";
}

void apply_resource_limits(uint64_t memory_bytes, uint64_t cpu_seconds) {
  set_rlimits(memory_bytes, cpu_seconds);
}

std::string restrict_filesystem(const std::vector<std::filesystem::path>&) {
  return std::string("filesystem not restricted") + kFallback;
}

PathHandles::PathHandles(const std::vector<std::filesystem::path>&) {}
std::string PathHandles::reachable(const std::string& path) const { return path; }

std::string drop_privileges(bool) { return std::string("user and privileges unchanged") + kFallback; }

std::string apply_syscall_filter(bool, bool, bool) { return std::string("no system-call filter") + kFallback; }

void die_with_parent() {}

std::vector<int> open_descriptors() {
  std::vector<int> fds;
  if (DIR* dir = opendir("/dev/fd")) {
    while (const dirent* entry = readdir(dir))
      if (entry->d_name[0] != '.') fds.push_back(std::stoi(entry->d_name));
    closedir(dir);
  }
  return fds;
}

std::vector<MemoryRange> writable_segments(const std::string&) { return {}; }
std::vector<CodePointerTable> code_pointer_tables(const std::string&) { return {}; }

}  // namespace ksearch::runner
