#include "core/fd.hpp"

#include <fcntl.h>

#include <cerrno>

#include "core/error.hpp"

namespace ksearch {

Pipe make_pipe() {
  int fds[2];
#if defined(__linux__)
  // Atomically close-on-exec: no other thread's spawn can inherit the pipe in between.
  if (pipe2(fds, O_CLOEXEC) != 0) throw SystemError("pipe", errno);
#else
  if (pipe(fds) != 0) throw SystemError("pipe", errno);
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#endif
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace ksearch
