#include "store/run_lock.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/file_error.hpp"

namespace fs = std::filesystem;

namespace ksearch::store {

namespace {
std::string read_all(int fd) {
  std::string text;
  char buffer[256];
  ssize_t n;
  while ((n = pread(fd, buffer, sizeof buffer, off_t(text.size()))) > 0) text.append(buffer, size_t(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}
}  // namespace

RunLock RunLock::acquire(const fs::path& dir) {
  const fs::path file = dir / "run.lock";
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) throw_file_error("open the run's lock file", file, errno);
  if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = read_all(fd.get());
    if (error != EWOULDBLOCK) throw Error(fmt::format("cannot lock {}: {}", file.string(), std::strerror(error)));
    throw Error(fmt::format("run {} is being written by another ksearch process ({}); wait for it to end or stop it first",
                            dir.string(), holder.empty() ? "holder unknown" : holder));
  }
  // Who holds it, for the message a second writer gets (best effort: the claim holds without it).
  const std::string holder = fmt::format("pid {}, since {:%Y-%m-%d %H:%M:%S}\n", getpid(), fmt::localtime(std::time(nullptr)));
  if (ftruncate(fd.get(), 0) == 0) (void)!pwrite(fd.get(), holder.data(), holder.size(), 0);
  return RunLock(std::move(fd));
}

std::optional<int> RunLock::holder(const fs::path& dir) {
  struct stat file;
  if (::stat((dir / "run.lock").c_str(), &file) != 0) return std::nullopt;  // never locked
  std::ifstream locks("/proc/locks");
  if (!locks) throw SystemError("read /proc/locks (is run " + dir.string() + " being written?)", errno);
  // Lines look like "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF" (device in hex).
  const std::string device = fmt::format("{:02x}:{:02x}:{}", major(file.st_dev), minor(file.st_dev), file.st_ino);
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, id;
    int pid = 0;
    if (fields >> number >> kind >> mode >> access >> pid >> id && kind == "FLOCK" && id == device) return pid;
  }
  return std::nullopt;
}

}  // namespace ksearch::store
