#include "runner/parent.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/random.h>  // getentropy (glibc and macOS)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "core/error.hpp"
#include "core/text.hpp"
#include "runner/host.hpp"
#include "runner/protocol.hpp"

extern char** environ;

namespace ksearch::runner {

namespace {
constexpr size_t kOutputKeep = 16 * 1024;

// Random descriptor numbers, so that a candidate cannot write to the result pipe by a fixed number.
std::vector<int> random_fds(int count) {
  std::random_device rd;
  std::vector<int> fds;
  while (int(fds.size()) < count) {
    int fd = 40 + int(rd() % 900);
    if (std::find(fds.begin(), fds.end(), fd) == fds.end()) fds.push_back(fd);
  }
  return fds;
}
// The size of OpenMP's default team in a runner started from this process: OMP_NUM_THREADS's first value, else the
// CPUs it may run on (the runner inherits this process's affinity).
unsigned default_team_size() {
  if (const char* v = std::getenv("OMP_NUM_THREADS"); v && std::isdigit(static_cast<unsigned char>(*v)))
    return unsigned(std::max(1ul, std::strtoul(v, nullptr, 10)));
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? unsigned(std::max(1, CPU_COUNT(&cpus))) : 1;
}

// Each nonce straight from the kernel's random source: knowing earlier nonces tells nothing of the next.
uint64_t random_nonce() {
  uint64_t nonce = 0;
  if (getentropy(&nonce, sizeof nonce) != 0) throw SystemError("getentropy", errno);
  return nonce;
}
}  // namespace

RunnerProcess::RunnerProcess(const std::filesystem::path& executable, const RunnerLimits& limits,
                             const std::vector<std::string>& environment, const std::vector<std::string>& launcher) {
  if (!std::filesystem::exists(executable)) throw Error("runner not found: " + executable.string() + " (build ksearch first)");
  // Every descriptor is owned from the moment it exists, so a constructor that throws leaks none.
  Pipe to_child = make_pipe(), from_child = make_pipe(), output = make_pipe();
  shm_fd_ = anonymous_shared_memory("ksearch-tensors");

  const auto fds = random_fds(3);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child.read_end.get(), fds[0]);
  posix_spawn_file_actions_adddup2(&actions, from_child.write_end.get(), fds[1]);
  posix_spawn_file_actions_adddup2(&actions, shm_fd_.get(), fds[2]);
  posix_spawn_file_actions_adddup2(&actions, output.write_end.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, output.write_end.get(), 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> argv_strings = launcher;
  const std::vector<std::string> runner_argv = {executable.string(), "--command-fd", std::to_string(fds[0]),
                                           "--result-fd", std::to_string(fds[1]), "--shm-fd", std::to_string(fds[2]),
                                           "--memory", std::to_string(limits.memory_bytes),
                                           "--cpu-seconds", std::to_string(limits.cpu_seconds),
                                           "--under-checker", launcher.empty() ? "0" : "1"};
  argv_strings.insert(argv_strings.end(), runner_argv.begin(), runner_argv.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  // A minimal environment: API keys and other secrets of the parent never reach a candidate.
  // Every object bound at load: the runner then holds the code pointers of the libraries beside the candidate still
  // (runner/code_pointers.hpp), GOT slots among them, which lazy binding would go on writing.
  std::vector<std::string> env_strings = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "LD_BIND_NOW=1"};
  // Inherited unless `environment` sets them (e.g. the device a runner is placed on).
  auto overridden = [&](const std::string& name) {
    return std::any_of(environment.begin(), environment.end(), [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
  };
  // OpenMP's idle workers sleep at once, whatever the host's OMP_WAIT_POLICY and GOMP_SPINCOUNT (the first of a
  // name is the one getenv finds): a worker spinning between calls cannot be told by its CPU time from one computing
  // the staged outputs off the clock, so libgomp's default spinning (up to milliseconds after every region) was an
  // allowance that whole workloads fitted in (`worker_gap_precompute`, evaluator/timing.cpp); and on a host other
  // work keeps busy, spinning barriers wait whole time slices for a descheduled thread. The team's size and binding
  // carry the host's tuning.
  env_strings.push_back("OMP_WAIT_POLICY=passive");
  for (const char* keep : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"})
    if (const char* v = std::getenv(keep); v && !overridden(keep)) env_strings.push_back(std::string(keep) + "=" + v);
  // The cpu runner starts its OpenMP team before the sandbox, which then refuses new threads: a region asking for more
  // (`num_threads(8)` on two cores, nested parallelism) gets as many as the team has instead of failing to start them.
  if (!overridden("OMP_THREAD_LIMIT")) env_strings.push_back("OMP_THREAD_LIMIT=" + std::to_string(default_team_size()));
  env_strings.insert(env_strings.end(), environment.begin(), environment.end());
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  const int rc = posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  command_fd_ = std::move(to_child.write_end);
  result_fd_ = std::move(from_child.read_end);
  output_fd_ = std::move(output.read_end);
  if (rc != 0) {
    pid_ = -1;
    throw SystemError("cannot start runner " + executable.string(), rc);
  }
  signal(SIGPIPE, SIG_IGN);  // a dead runner must not kill ksearch through a broken pipe
  output_reader_ = std::thread([this] {
    char buffer[4096];
    while (true) {
      ssize_t n = read(output_fd_.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(output_mutex_);
      output_.append(buffer, size_t(n));
      if (output_.size() > 2 * kOutputKeep) output_.erase(0, output_.size() - kOutputKeep);
    }
    std::lock_guard lock(output_mutex_);
    output_ended_ = true;
    output_ended_changed_.notify_all();
  });
}

RunnerProcess::~RunnerProcess() {
  if (pid_ > 0 && alive()) {
    write_frame(command_fd_.get(), {{"cmd", "exit"}});
    bool timed_out = false;
    read_frame(result_fd_.get(), 500, &timed_out);
  }
  kill_group();
  if (pid_ > 0 && !reaped_) waitpid(pid_, &exit_status_, 0);
  command_fd_.reset();
  result_fd_.reset();
  shm_fd_.reset();
  if (output_reader_.joinable()) output_reader_.join();  // the output pipe ends with the runner's group
  output_fd_.reset();
  if (shm_base_) munmap(shm_base_, shm_size_);
}

std::optional<double> RunnerProcess::main_thread_cpu_ms() const {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  return blocked_main_thread_cpu_ms(pid_);
}

std::optional<ProcessCpu> RunnerProcess::process_cpu() const {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  return runner::process_cpu(pid_);
}

std::optional<double> RunnerProcess::idle_other_threads_cpu_ms(std::chrono::milliseconds bound, bool* still_running) const {
  *still_running = false;
  if (pid_ <= 0 || reaped_) return std::nullopt;
  return runner::idle_other_threads_cpu_ms(pid_, bound, still_running);
}

int RunnerProcess::finish(std::chrono::milliseconds timeout) {
  if (alive()) {
    write_frame(command_fd_.get(), {{"cmd", "exit"}, {"nonce", random_nonce()}});
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (alive() && std::chrono::steady_clock::now() < deadline) usleep(10000);
    if (!reaped_) {
      kill_group();
      waitpid(pid_, &exit_status_, 0);
      reaped_ = true;
    }
  }
  if (output_reader_.joinable()) output_reader_.join();  // the pipe closes once the process group is gone
  return exit_status_;
}

void RunnerProcess::kill_group() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}

bool RunnerProcess::alive() {
  if (pid_ <= 0 || reaped_) return false;
  pid_t r = waitpid(pid_, &exit_status_, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    ::kill(-pid_, SIGKILL);  // threads or leftovers in its group
    return false;
  }
  return true;
}

std::string RunnerProcess::output_tail() const {
  std::lock_guard lock(output_mutex_);
  return output_.size() > kOutputKeep ? output_.substr(output_.size() - kOutputKeep) : output_;
}

void RunnerProcess::wait_for_output_end(std::chrono::milliseconds bound) {
  std::unique_lock lock(output_mutex_);
  output_ended_changed_.wait_for(lock, bound, [this] { return output_ended_; });
}

std::string RunnerProcess::death_description() {
  if (!reaped_) {
    // Give the kernel a moment to deliver the exit after the pipe closed.
    for (int i = 0; i < 100 && alive(); ++i) usleep(10000);
    if (!reaped_) {
      kill_group();
      waitpid(pid_, &exit_status_, 0);
      reaped_ = true;
      wait_for_output_end(std::chrono::seconds(2));
      return "the runner stopped answering";
    }
  }
  wait_for_output_end(std::chrono::seconds(2));  // bounded: a process that escaped the group may hold the pipe
  if (WIFEXITED(exit_status_)) {
    // What it printed last says why where a library gave up (libgomp: "Thread creation failed").
    std::string tail = output_tail();
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    const std::string last_line = tail.substr(tail.rfind('\n') == std::string::npos ? 0 : tail.rfind('\n') + 1);
    return "the candidate's process exited with status " + std::to_string(WEXITSTATUS(exit_status_)) +
           " before finishing (an exit() in the candidate or a library it calls, or a crash in the runner)" +
           (last_line.empty() ? "" : "; the last line it printed: \"" + printable(last_line.substr(0, 200), false) + "\"");
  }
  if (WIFSIGNALED(exit_status_)) {
    const int sig = WTERMSIG(exit_status_);
    switch (sig) {
      case SIGSYS: return "killed by the sandbox (SIGSYS): the candidate made a forbidden system call (process creation, network, signals to other processes, ...)";
      case SIGXCPU: return "killed for exceeding its CPU-time limit (SIGXCPU)";
      case SIGXFSZ: return "killed for writing to a file (SIGXFSZ): candidates may not write files";
      case SIGSEGV: return "crashed with a segmentation fault (SIGSEGV): invalid memory access";
      case SIGBUS: return "crashed with a bus error (SIGBUS)";
      case SIGFPE: return "crashed with an arithmetic exception (SIGFPE)";
      case SIGILL: return "crashed on an illegal instruction (SIGILL)";
      case SIGABRT: return "aborted (SIGABRT): an assertion, std::terminate or a failed allocation (memory limit?)";
      case SIGKILL: return "killed (SIGKILL): out of memory or killed by ksearch";
      default: return std::string("killed by signal ") + strsignal(sig);
    }
  }
  return "the runner died";
}

nlohmann::json RunnerProcess::request(const nlohmann::json& command_in, std::chrono::milliseconds timeout) {
  if (!alive()) throw RunnerFailure(RunnerFailure::Kind::crashed, death_description());
  // Every command carries a fresh nonce that the runner echoes: a frame written to the result pipe by
  // the candidate (which cannot know the nonce of the command in flight) is caught as a forgery.
  nlohmann::json command = command_in;
  const uint64_t nonce = random_nonce();
  command["nonce"] = nonce;
  if (!write_frame(command_fd_.get(), command)) throw RunnerFailure(RunnerFailure::Kind::crashed, death_description());
  bool timed_out = false;
  auto reply = read_frame(result_fd_.get(), int(timeout.count()), &timed_out);
  if (!reply) {
    if (timed_out) {
      kill_group();
      wait_for_output_end(std::chrono::seconds(2));
      throw RunnerFailure(RunnerFailure::Kind::timeout,
                          "no answer within " + std::to_string(timeout.count() / 1000.0) + " s (hang or too slow); killed");
    }
    throw RunnerFailure(RunnerFailure::Kind::crashed, death_description());
  }
  if (!reply->contains("nonce") || !(*reply)["nonce"].is_number_unsigned() || (*reply)["nonce"].get<uint64_t>() != nonce) {
    kill_group();
    throw RunnerFailure(RunnerFailure::Kind::forged,
                        "a message on the result channel did not come from the runner (forged by the candidate)");
  }
  if (!reply->value("ok", false))
    throw RunnerFailure(RunnerFailure::Kind::error, reply->value("error", std::string("the runner reported an error")));
  return *reply;
}

char* RunnerProcess::shared_memory(size_t bytes, std::chrono::milliseconds timeout) {
  bytes = std::max<size_t>(bytes, 4096);
  if (bytes <= shm_size_) return shm_base_;
  if (shm_base_) munmap(shm_base_, shm_size_);
  if (ftruncate(shm_fd_.get(), off_t(bytes)) != 0) throw SystemError("cannot size shared memory", errno);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd_.get(), 0);
  if (p == MAP_FAILED) throw SystemError("cannot map shared memory", errno);
  shm_base_ = static_cast<char*>(p);
  shm_size_ = bytes;
  request({{"cmd", "map"}, {"bytes", bytes}}, timeout);
  return shm_base_;
}

}  // namespace ksearch::runner
