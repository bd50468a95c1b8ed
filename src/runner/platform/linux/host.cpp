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

namespace {
// The state letter of /proc/<pid>/task/<tid>/stat ('R' running or runnable, 'S'/'D' blocked), '?' where it is gone.
char thread_state(const std::filesystem::path& task) {
  std::ifstream stat(task / "stat");
  std::string line;
  if (!std::getline(stat, line)) return '?';
  const size_t name_end = line.rfind(')');
  return name_end + 2 < line.size() ? line[name_end + 2] : '?';
}
bool blocked(char state) { return state == 'S' || state == 'D'; }

std::optional<double> thread_cpu_ms(const std::filesystem::path& task) {
  std::ifstream schedstat(task / "schedstat");
  double nanoseconds = 0;
  if (!(schedstat >> nanoseconds)) return std::nullopt;
  return nanoseconds / 1e6;
}
}  // namespace

std::optional<double> blocked_main_thread_cpu_ms(pid_t pid) {
  const std::filesystem::path task = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid);
  // The kernel adds a running thread's current slice to its total only when it stops running, and /proc shows it
  // blocked from the moment it starts to block, before it has left the CPU: a total read then misses the slice,
  // which moves to the next reading. ksearch reads right after a reply, while the runner goes back to waiting for the
  // next command, so a call was often charged the `prepare` before it (tiny_softmax's seed on held_r5_c777: 0.055 ms
  // read for 0.028 ms settled). Settled: two looks 20 us apart both find the thread blocked with the same total.
  std::optional<double> previous;
  for (int attempt = 0; attempt < 2000; ++attempt) {
    const char state = thread_state(task);
    if (state == '?') return std::nullopt;
    if (!blocked(state)) {
      previous.reset();
      usleep(10);
      continue;
    }
    const std::optional<double> ms = thread_cpu_ms(task);
    if (!ms) return std::nullopt;
    if (previous && *previous == *ms) return ms;
    previous = ms;
    usleep(20);
  }
  return std::nullopt;
}

std::optional<ProcessCpu> process_cpu(pid_t pid) {
  ProcessCpu cpu;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const std::optional<double> ms = thread_cpu_ms(task.path());
    if (!ms) continue;  // a thread that just exited
    cpu.ms += *ms;
    if (task.path().filename() != std::to_string(pid)) cpu.other_threads_ms += *ms;
    ++cpu.threads;
  }
  if (ec || cpu.threads == 0) return std::nullopt;
  return cpu;
}

std::optional<double> idle_other_threads_cpu_ms(pid_t pid, std::chrono::milliseconds bound, bool* still_running) {
  *still_running = false;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  const auto deadline = std::chrono::steady_clock::now() + bound;
  std::optional<double> previous;  // the threads' CPU time at the previous look where all were blocked
  while (true) {
    double ms = 0;
    bool all_blocked = true;
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
      if (task.path().filename() == std::to_string(pid)) continue;
      const char state = thread_state(task.path());
      const std::optional<double> thread_ms = thread_cpu_ms(task.path());
      if (state == '?' || !thread_ms) continue;  // a thread that just exited
      all_blocked = all_blocked && blocked(state);
      ms += *thread_ms;
    }
    if (ec) return std::nullopt;
    // Blocked twice in a row with nothing run in between: asleep, not between two short runs.
    if (all_blocked && previous && *previous == ms) return ms;
    previous = all_blocked ? std::optional<double>(ms) : std::nullopt;
    if (std::chrono::steady_clock::now() > deadline) {
      *still_running = true;
      return std::nullopt;
    }
    usleep(100);
  }
}

}  // namespace ksearch::runner
