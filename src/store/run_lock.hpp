#pragma once
// RunLock: the claim of one process on a run folder while it writes the run.

#include <filesystem>
#include <optional>

#include "core/fd.hpp"

namespace ksearch::store {

// Exclusive: a second writer (run, resume, agent submit) of the same folder fails with an error that
// names the holder, instead of both adding candidates and overwriting results. The operating system
// drops the claim when the holder exits, even on kill -9, so a killed run is never left locked.
class RunLock {
 public:
  // Throws Error naming the holder when another process holds the folder.
  static RunLock acquire(const std::filesystem::path& dir);
  // The process id of the writer holding `dir`, if any, found in /proc/locks without taking the
  // claim (so that listing runs never blocks a writer for a moment).
  static std::optional<int> holder(const std::filesystem::path& dir);

  // Move-only; closing the last descriptor (on destruction) releases the flock.

 private:
  explicit RunLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace ksearch::store
