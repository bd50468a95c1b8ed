#pragma once
// core/fd: file descriptors owned by objects, so that no error path leaks one. UniqueFd is
// header-only, so that runners use it without linking ksearch_core.
#include <unistd.h>

#include <utility>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Owns one descriptor and closes it when destroyed or reset; move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  // Closes the descriptor held, if any, and holds `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0 && fd_ != fd) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A pipe with close-on-exec set on both ends. Throws SystemError.
struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};
Pipe make_pipe();

}  // namespace ksearch
