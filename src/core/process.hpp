#pragma once
// core/process: running a command with a timeout, a memory limit and bounded output (compilers,
// probes); runners have their own process handling (runner/parent.hpp).
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

struct CommandResult {
  int exit_code = -1;      // valid when !signaled && !timed_out
  int signal = 0;          // terminating signal, 0 if none
  bool timed_out = false;
  std::string output;      // stdout and stderr interleaved, truncated to max_output_bytes (tail kept)
  double wall_seconds = 0;
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
};

struct CommandOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::filesystem::path cwd;
  size_t max_output_bytes = 64 * 1024;
  size_t memory_limit_bytes = 0;  // RLIMIT_AS for the child, 0 = none
  size_t file_size_limit_bytes = 0;  // RLIMIT_FSIZE: no file the child writes grows past it, 0 = none
};

// Runs argv[0] (searched on PATH) in its own process group; on timeout the whole group is killed.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// Whether `program` is an executable in one of $PATH's folders (as execvp would find it).
bool on_path(const std::string& program);

// The last `max_lines` lines of `text`, for short log excerpts.
std::string tail_lines(const std::string& text, size_t max_lines);

}  // namespace ksearch
