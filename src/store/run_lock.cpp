#include "store/run_lock.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "core/error.hpp"

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
  if (!fd) throw Error(fmt::format("cannot open {}: {}", file.string(), std::strerror(errno)));
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

}  // namespace ksearch::store
