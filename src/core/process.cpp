#include "core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/error.hpp"
#include "core/fd.hpp"

namespace ksearch {

namespace {

void append_bounded(std::string& out, const char* data, size_t n, size_t limit) {
  out.append(data, n);
  if (out.size() > 2 * limit) out.erase(0, out.size() - limit);
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) throw Error("run_command: empty command");
  Pipe output = make_pipe();

  // Everything the child needs is prepared before fork: only async-signal-safe calls follow it.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();  // the child only sets limits and execs, so forking this process is safe
  if (pid < 0) throw SystemError("fork", errno);
  if (pid == 0) {
    setpgid(0, 0);
    dup2(output.write_end.get(), 1);
    dup2(output.write_end.get(), 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    if (options.memory_limit_bytes) {
      rlimit lim{options.memory_limit_bytes, options.memory_limit_bytes};
      setrlimit(RLIMIT_AS, &lim);
    }
    if (options.file_size_limit_bytes) {
      rlimit lim{options.file_size_limit_bytes, options.file_size_limit_bytes};
      setrlimit(RLIMIT_FSIZE, &lim);
    }
    execvp(args[0], args.data());
    static const char kMessage[] = "cannot execute command\n";
    (void)!write(2, kMessage, sizeof kMessage - 1);
    _exit(127);
  }
  setpgid(pid, pid);
  output.write_end.reset();

  CommandResult result;
  char buffer[8192];
  const auto deadline = start + options.timeout;
  bool open_pipe = true;
  while (open_pipe) {
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (remaining.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd pfd{output.read_end.get(), POLLIN, 0};
    int ready = poll(&pfd, 1, int(std::min<long>(remaining.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      ssize_t n = read(output.read_end.get(), buffer, sizeof buffer);
      if (n > 0) append_bounded(result.output, buffer, size_t(n), options.max_output_bytes);
      else if (n == 0 || errno != EINTR) open_pipe = false;
    }
  }
  output.read_end.reset();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  kill(-pid, SIGKILL);  // reap stragglers the command left in its group
  if (result.output.size() > options.max_output_bytes)
    result.output.erase(0, result.output.size() - options.max_output_bytes);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  return false;
}

std::string tail_lines(const std::string& text, size_t max_lines) {
  size_t count = 0;
  size_t pos = text.size();
  while (pos > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    if (nl != text.size() - 1 && ++count >= max_lines) return text.substr(nl + 1);
    pos = nl;
  }
  return text;
}

}  // namespace ksearch
