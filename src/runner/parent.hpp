#pragma once
// The parent side of the runner protocol: starts a runner executable in its own process group
// with limits, talks to it, and turns every way it can die into a RunnerFailure.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fd.hpp"
#include "runner/host.hpp"

namespace ksearch::runner {

struct RunnerLimits {
  uint64_t memory_bytes = uint64_t(8) << 30;  // RLIMIT_AS; 0 = none
  uint64_t cpu_seconds = 600;
};

struct RunnerFailure : std::runtime_error {
  enum class Kind { timeout, crashed, error, forged } kind;
  RunnerFailure(Kind k, const std::string& message) : std::runtime_error(message), kind(k) {}
};

class RunnerProcess {
 public:
  // `launcher` is an argv prefix the runner is started under (e.g. a memory checker), empty for none.
  RunnerProcess(const std::filesystem::path& executable, const RunnerLimits& limits,
                const std::vector<std::string>& environment = {}, const std::vector<std::string>& launcher = {});
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // Sends a command and waits for its answer. A reply with ok=false becomes RunnerFailure(error);
  // no reply in time kills the process group (timeout); a dead runner is `crashed` with how it died.
  nlohmann::json request(const nlohmann::json& command, std::chrono::milliseconds timeout);

  // Shared memory of at least `bytes`, mapped here and (after the map command) in the runner.
  char* shared_memory(size_t bytes, std::chrono::milliseconds timeout);
  size_t shared_memory_size() const { return shm_size_; }

  std::string output_tail() const;  // last lines the runner (and the candidate) printed
  // CPU time in milliseconds that the runner's main thread has used, as the kernel accounts it, read
  // once that thread is blocked (waiting for the next command) so that its last run is included;
  // nullopt if it could not be read. The candidate cannot forge it: it is not in its process.
  std::optional<double> main_thread_cpu_ms() const;
  // CPU time of all the runner's threads, and their number (runner/host.hpp).
  std::optional<ProcessCpu> process_cpu() const;
  // The CPU time of its threads but the main one once they are all asleep (runner/host.hpp).
  std::optional<double> idle_other_threads_cpu_ms(std::chrono::milliseconds bound, bool* still_running) const;
  // Asks the runner to exit and waits for it (and for what a launcher prints at the end); returns the
  // wait status.
  int finish(std::chrono::milliseconds timeout);
  void kill_group();
  bool alive();

 private:
  std::string death_description();
  // What the runner printed before it died reaches the pipe before its death is seen, but the reader thread may
  // not have appended it yet: a report taken then would lose the candidate's last words (its error message).
  void wait_for_output_end(std::chrono::milliseconds bound);
  pid_t pid_ = -1;
  UniqueFd command_fd_, result_fd_, shm_fd_, output_fd_;
  char* shm_base_ = nullptr;
  size_t shm_size_ = 0;
  int exit_status_ = 0;
  bool reaped_ = false;
  std::thread output_reader_;
  mutable std::mutex output_mutex_;
  std::string output_;
  bool output_ended_ = false;  // the reader saw the pipe close
  std::condition_variable output_ended_changed_;
};

}  // namespace ksearch::runner
