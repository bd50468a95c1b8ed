#include "core/timing_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/paths.hpp"

namespace ksearch {

TimingLock::TimingLock() : fd_(open((cache_dir() / "timing.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600)) {
  if (fd_ >= 0) flock(fd_, LOCK_EX);
}

TimingLock::~TimingLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace ksearch
