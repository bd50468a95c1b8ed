#include "core/timing_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/paths.hpp"

namespace ksearch {
namespace {

int lock_file(const std::string& name, int operation) {
  const int fd = open((cache_dir() / name).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) flock(fd, operation);
  return fd;
}

}  // namespace

TimingLock::TimingLock(const std::string& device_key)
    : machine_fd_(lock_file("timing.lock", device_key.empty() ? LOCK_EX : LOCK_SH)),
      device_fd_(device_key.empty() ? -1 : lock_file("timing-" + device_key + ".lock", LOCK_EX)) {}

TimingLock::~TimingLock() {
  if (device_fd_ >= 0) close(device_fd_);
  if (machine_fd_ >= 0) close(machine_fd_);
}

}  // namespace ksearch
