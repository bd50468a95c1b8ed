#pragma once
// runner/sandbox: how a runner confines itself before it loads a candidate. One interface, one
// implementation per platform: runner/platform/linux/ (rlimits, Landlock, capabilities dropped,
// seccomp, the candidate's data reset between calls) and runner/platform/posix/ (rlimits only: the
// weaker isolation of other systems, docs/EVALUATION.md "Platforms").
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/fd.hpp"

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
  PathHandles(const PathHandles&) = delete;
  PathHandles& operator=(const PathHandles&) = delete;
  // `path` itself when it lies under none of the paths.
  std::string reachable(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, UniqueFd>> handles_;
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
// `strict`, every stage also covers the threads started before it. Without `threads_after_load`, stage 2
// (and stage 1 too when `strict`) also refuses new threads. Returns what was applied.
std::string apply_syscall_filter(bool after_load, bool strict, bool threads_after_load);

// A region at a fixed address below every loaded object, for what decides the runner's checks after the
// candidate's code ran (runner/child.cpp): a first page, mapped and made read-only before any candidate code runs,
// then the held code pointers' table, written once the candidate is loaded and then made read-only. From stage 1 of
// the system-call filter on, no mapping change, protection change (but the table's to read-only) or memory advice
// may start in or below the region (a range that covers it starts there), so that a candidate can change neither
// it nor where it is.
inline constexpr uintptr_t kRunnerGuardPage = 0x10000;
inline constexpr size_t kRunnerGuardPageBytes = 4096;
inline constexpr uintptr_t kRunnerHeldTable = kRunnerGuardPage + kRunnerGuardPageBytes;
inline constexpr size_t kRunnerHeldTableBytes = size_t(16) << 20;  // reserved; only the pages written cost memory
inline constexpr uintptr_t kRunnerGuardEnd = kRunnerHeldTable + kRunnerHeldTableBytes;

// The runner is killed when its parent (ksearch) exits; where the platform has no such signal it
// still exits when ksearch closes the command pipe.
void die_with_parent();
// The descriptors open in this process now.
std::vector<int> open_descriptors();

struct MemoryRange {
  uintptr_t begin = 0, end = 0;
};
// The writable data of the loaded library `library` (.data and .bss, not what becomes read-only after
// relocation), for LibraryState; empty where the platform cannot tell. Throws when it is not loaded.
std::vector<MemoryRange> writable_segments(const std::string& library);

// The words of the writable data of each object loaded beside `except_library` (the candidate, whose writable data
// LibraryState resets) that hold an address in an executable segment of a loaded object, and its writable GOT slots
// whatever they hold (a library linked with partial RELRO, as Debian's libstdc++, keeps them writable): one table
// per object, each slot with its symbol's name. Once every object is bound at load (LD_BIND_NOW) and the runtime
// set up, nothing legitimate writes them again (on an H200, none of the 52,000 such words of libcudart, libcuda and
// the C++ runtime changed across launches, graphs, memory pools and a kernel library's load); CodePointers holds
// them still. Empty where the platform cannot tell.
struct CodePointerTable {
  std::string object;
  std::vector<uintptr_t> words;               // the words' addresses, ascending
  std::map<size_t, std::string> got_symbols;  // the GOT slots among them, by index, with their symbols ("" unnamed)
};
std::vector<CodePointerTable> code_pointer_tables(const std::string& except_library);

}  // namespace ksearch::runner
