// runner/host on Linux: memfd for the tensors, the main thread's CPU time from /proc.
#include "runner/host.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "core/error.hpp"

namespace ksearch::runner {

UniqueFd anonymous_shared_memory(const char* name) {
  UniqueFd fd(memfd_create(name, MFD_CLOEXEC));
  if (!fd) throw SystemError("memfd_create", errno);
  return fd;
}

std::optional<double> blocked_main_thread_cpu_ms(pid_t pid) {
  const std::string task = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid);
  // The kernel adds a running thread's current slice to its total only when it stops running.
  for (int attempt = 0; attempt < 2000; ++attempt) {
    std::ifstream stat(task + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const size_t name_end = line.rfind(')');
    const char state = name_end + 2 < line.size() ? line[name_end + 2] : '?';
    if (state == 'S' || state == 'D') {
      std::ifstream schedstat(task + "/schedstat");
      double nanoseconds = 0;
      if (!(schedstat >> nanoseconds)) return std::nullopt;
      return nanoseconds / 1e6;
    }
    usleep(10);
  }
  return std::nullopt;
}

std::optional<ProcessCpu> process_cpu(pid_t pid) {
  ProcessCpu cpu;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream schedstat(task.path() / "schedstat");
    double nanoseconds = 0;
    if (!(schedstat >> nanoseconds)) continue;  // a thread that just exited
    cpu.ms += nanoseconds / 1e6;
    ++cpu.threads;
  }
  if (ec || cpu.threads == 0) return std::nullopt;
  return cpu;
}

}  // namespace ksearch::runner
