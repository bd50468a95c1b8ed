#include "runner/sandbox.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sched.h>
#include <stdexcept>

namespace ksearch::runner {

namespace {
// Kernel ABI values newer than some distributions' headers (the kernel, not the header, decides).
constexpr uint64_t kAccessFsRefer = 1ull << 13;     // ABI 2
constexpr uint64_t kAccessFsTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kAccessNetBindTcp = 1ull << 0;   // ABI 4
constexpr uint64_t kAccessNetConnectTcp = 1ull << 1;
struct RulesetAttr {  // landlock_ruleset_attr as of ABI 4
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
};
}  // namespace

void apply_resource_limits(uint64_t memory_bytes, uint64_t cpu_seconds) {
  auto set = [](int resource, rlim_t value) {
    rlimit lim{value, value};
    setrlimit(resource, &lim);
  };
  if (memory_bytes) set(RLIMIT_AS, memory_bytes);
  if (cpu_seconds) set(RLIMIT_CPU, cpu_seconds);
  set(RLIMIT_FSIZE, 0);
  set(RLIMIT_CORE, 0);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

std::string restrict_filesystem(const std::vector<std::filesystem::path>& readable) {
  const int abi = int(syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION));
  if (abi < 1) return std::string("landlock unavailable (") + std::strerror(errno) + "): filesystem not restricted";
  uint64_t handled = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                     LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) handled |= kAccessFsRefer;
  if (abi >= 3) handled |= kAccessFsTruncate;
  RulesetAttr attr{};
  attr.handled_access_fs = handled;
  if (abi >= 4) attr.handled_access_net = kAccessNetBindTcp | kAccessNetConnectTcp;
  const size_t attr_size = abi >= 4 ? sizeof attr : sizeof(uint64_t);
  const int ruleset = int(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) return std::string("landlock ruleset failed: ") + std::strerror(errno);
  std::vector<std::filesystem::path> paths = {"/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf",
                                              "/proc/self", "/sys/devices/system/cpu"};
  paths.insert(paths.end(), readable.begin(), readable.end());
  for (const auto& path : paths) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) continue;
    landlock_path_beneath_attr rule{};
    rule.parent_fd = fd;
    const bool is_dir = std::filesystem::is_directory(path);
    rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | (is_dir ? LANDLOCK_ACCESS_FS_READ_DIR : 0);
    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
  }
  const int rc = int(syscall(SYS_landlock_restrict_self, ruleset, 0));
  close(ruleset);
  if (rc != 0) return std::string("landlock restrict failed: ") + std::strerror(errno);
  return "landlock abi " + std::to_string(abi) + ": read-only system libraries and artifact, no writes, no TCP";
}

void apply_syscall_filter(bool after_load, bool strict) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) throw std::runtime_error("seccomp_init failed");
  const uint32_t kill = SCMP_ACT_KILL_PROCESS;
  for (int sc : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(socket),
                 SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
                 SCMP_SYS(accept4), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                 SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(chroot), SCMP_SYS(pivot_root), SCMP_SYS(setuid),
                 SCMP_SYS(setgid), SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(kexec_load), SCMP_SYS(reboot),
                 SCMP_SYS(init_module), SCMP_SYS(finit_module), SCMP_SYS(bpf), SCMP_SYS(perf_event_open),
                 SCMP_SYS(userfaultfd), SCMP_SYS(io_uring_setup)})
    seccomp_rule_add(ctx, kill, sc, 0);
  // Threads are fine (OpenMP); new processes are not. clone3 hides its flags, so make glibc fall back to clone.
  seccomp_rule_add(ctx, kill, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Signals only to this process: kill(pid) for another pid would reach outside.
  seccomp_rule_add(ctx, kill, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, uint64_t(getpid())));
  for (int sc : {SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
                 SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(symlink), SCMP_SYS(symlinkat),
                 SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(chmod), SCMP_SYS(fchmod), SCMP_SYS(fchmodat),
                 SCMP_SYS(truncate), SCMP_SYS(ftruncate)})
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), sc, 0);
  // Opening files for writing is refused in both stages; after loading, opening anything is.
  if (after_load && strict) {
    for (int sc : {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(creat), SCMP_SYS(openat2), SCMP_SYS(open_by_handle_at)})
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), sc, 0);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  } else {
    for (uint64_t flag : {uint64_t(O_WRONLY), uint64_t(O_RDWR), uint64_t(O_CREAT), uint64_t(O_TRUNC), uint64_t(O_APPEND)}) {
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag));
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag));
    }
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(creat), 0);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  }
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) throw std::runtime_error(std::string("seccomp_load failed: ") + std::strerror(-rc));
}

}  // namespace ksearch::runner
