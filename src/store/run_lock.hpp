#pragma once
// RunLock: the claim of one process on a run folder while it writes the run.

#include <filesystem>

namespace ksearch::store {

// Exclusive: a second writer (run, resume, agent submit) of the same folder fails with an error that
// names the holder, instead of both adding candidates and overwriting results. The operating system
// drops the claim when the holder exits, even on kill -9, so a killed run is never left locked.
class RunLock {
 public:
  // Throws Error naming the holder when another process holds the folder.
  static RunLock acquire(const std::filesystem::path& dir);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ksearch::store
