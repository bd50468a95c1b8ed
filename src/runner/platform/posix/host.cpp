// runner/host, portable fallback (macOS, BSDs): POSIX shared memory, unlinked at once so that only
// descriptors reach it; no per-thread CPU time of another process.
#include "runner/host.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>

#include "core/error.hpp"

namespace ksearch::runner {

UniqueFd anonymous_shared_memory(const char* name) {
  // shm names are global: a random suffix, exclusive creation, and an unlink before anyone else can
  // guess it. (macOS limits the name to 31 characters.)
  const std::string unique = "/" + std::string(name).substr(0, 12) + "-" + std::to_string(std::random_device{}());
  UniqueFd fd(shm_open(unique.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
  if (!fd) throw SystemError("shm_open", errno);
  shm_unlink(unique.c_str());
  fcntl(fd.get(), F_SETFD, FD_CLOEXEC);
  return fd;
}

std::optional<double> blocked_main_thread_cpu_ms(pid_t) { return std::nullopt; }

std::optional<ProcessCpu> process_cpu(pid_t) { return std::nullopt; }

std::optional<double> idle_other_threads_cpu_ms(pid_t, std::chrono::milliseconds, bool* still_running) {
  *still_running = false;
  return std::nullopt;
}

}  // namespace ksearch::runner
