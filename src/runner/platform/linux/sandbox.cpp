// runner/sandbox on Linux: rlimits, Landlock, capabilities and user dropped, seccomp programs,
// the parent-death signal, and the ELF walk that finds a candidate's writable data.
#include "runner/sandbox.hpp"

#include <fcntl.h>
#include <grp.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <sched.h>
#include <stdexcept>

#include "runner/platform/rlimits.hpp"

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
  set_rlimits(memory_bytes, cpu_seconds);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);  // Landlock and seccomp need it; no setuid binary can raise us
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
  const UniqueFd ruleset(int(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0)));
  if (!ruleset) return std::string("landlock ruleset failed: ") + std::strerror(errno);
  std::vector<std::filesystem::path> paths = {"/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf",
                                              "/proc/self", "/sys/devices/system/cpu"};
  paths.insert(paths.end(), readable.begin(), readable.end());
  for (const auto& path : paths) {
    const UniqueFd fd(open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd) continue;
    landlock_path_beneath_attr rule{};
    rule.parent_fd = fd.get();
    const bool is_dir = std::filesystem::is_directory(path);
    rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | (is_dir ? LANDLOCK_ACCESS_FS_READ_DIR : 0);
    syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  }
  const int rc = int(syscall(SYS_landlock_restrict_self, ruleset.get(), 0));
  if (rc != 0) return std::string("landlock restrict failed: ") + std::strerror(errno);
  return "landlock abi " + std::to_string(abi) + ": read-only system libraries and artifact, no writes, no TCP";
}

PathHandles::PathHandles(const std::vector<std::filesystem::path>& paths) {
  for (const auto& path : paths) {
    std::string name = path.lexically_normal().string();
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    UniqueFd fd(open(name.c_str(), O_PATH | O_CLOEXEC));
    if (fd) handles_.emplace_back(name, std::move(fd));
  }
}

std::string PathHandles::reachable(const std::string& path) const {
  for (const auto& [prefix, fd] : handles_)
    if (path == prefix || (path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '/'))
      return "/proc/self/fd/" + std::to_string(fd.get()) + path.substr(prefix.size());
  return path;
}

std::string drop_privileges(bool switch_user) {
  // The bounding and ambient sets first: changing them needs CAP_SETPCAP, which the switch below removes.
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  const bool root = getuid() == 0 || geteuid() == 0;
  std::string user = "uid " + std::to_string(getuid()) + (root ? "" : " (not root)");
  if (root && switch_user) {
    constexpr uid_t kNobody = 65534;
    // glibc applies every set*id call to all threads of the process.
    if (setgroups(0, nullptr) == 0 && setresgid(kNobody, kNobody, kNobody) == 0 &&
        setresuid(kNobody, kNobody, kNobody) == 0)
      user = "uid and gid 65534";
    else  // e.g. a user namespace that maps no uid 65534; still without capabilities
      user = std::string("still uid 0: cannot switch to 65534 (") + std::strerror(errno) + ")";
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capset, &header, none) != 0)
    throw std::runtime_error(std::string("cannot drop capabilities: ") + std::strerror(errno));
  die_with_parent();  // a change of user clears the parent-death signal
  if (getppid() == 1) throw std::runtime_error("ksearch exited while the runner was starting");
  return "no capabilities, " + user;
}

namespace {

// Hand-written seccomp programs for what libseccomp cannot express (it takes one comparison per
// argument): an argument inside one of several address ranges, or outside a set of values.
using Program = std::vector<sock_filter>;
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "arguments are read as two little-endian halves");
#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT, kGlobalData = R_X86_64_GLOB_DAT;  // a GOT's function slots
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobalData = R_AARCH64_GLOB_DAT;
#endif

constexpr uint32_t argument_low(int i) { return uint32_t(offsetof(seccomp_data, args) + 8 * i); }
constexpr uint32_t argument_high(int i) { return argument_low(i) + 4; }

sock_filter load(uint32_t offset) { return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset); }
sock_filter jump_if_equal(uint32_t value, uint8_t if_true, uint8_t if_false) {
  return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, if_true, if_false);
}
sock_filter give(uint32_t action) { return BPF_STMT(BPF_RET | BPF_K, action); }

// `body` runs for system call `nr` only; it falls through to what follows unless it returns.
Program on_syscall(long nr, const Program& body) {
  Program code = {load(offsetof(seccomp_data, nr)), jump_if_equal(uint32_t(nr), 1, 0),
                  BPF_JUMP(BPF_JMP | BPF_JA, uint32_t(body.size()), 0, 0)};
  code.insert(code.end(), body.begin(), body.end());
  return code;
}

struct AddressRange {
  uint64_t begin, end;
};

Program when_argument_in(int arg, const std::vector<AddressRange>& ranges, uint32_t action) {
  Program code;
  for (const auto& range : ranges)
    for (uint64_t first = range.begin; first < range.end;) {
      const uint64_t last = std::min<uint64_t>(range.end - 1, first | 0xffffffffull);  // a piece within one high half
      code.insert(code.end(), {load(argument_high(arg)), jump_if_equal(uint32_t(first >> 32), 0, 4),
                               load(argument_low(arg)), BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, uint32_t(first), 0, 2),
                               BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, uint32_t(last), 1, 0), give(action)});
      first = last + 1;
    }
  return code;
}

// For arguments the kernel reads as 32-bit ints (the upper half is ignored by the kernel, so here too).
Program unless_argument_one_of(int arg, const std::vector<uint32_t>& values, uint32_t action) {
  Program code = {load(argument_low(arg))};
  for (size_t i = 0; i < values.size(); ++i) code.push_back(jump_if_equal(values[i], uint8_t(values.size() - i), 0));
  code.push_back(give(action));
  return code;
}

void load_program(const Program& body, bool all_threads) {
  Program code = {load(offsetof(seccomp_data, arch)), jump_if_equal(kNativeArch, 1, 0),
                  give(SECCOMP_RET_ALLOW)};  // other architectures: the libseccomp filter kills them
  code.insert(code.end(), body.begin(), body.end());
  code.push_back(give(SECCOMP_RET_ALLOW));
  if (code.size() > BPF_MAXINSNS) throw std::runtime_error("seccomp program too long");
  const sock_fprog program{uint16_t(code.size()), code.data()};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, all_threads ? SECCOMP_FILTER_FLAG_TSYNC : 0, &program) != 0)
    throw std::runtime_error(std::string("cannot load a seccomp program: ") + std::strerror(errno));
}

// One line of /proc/self/maps: the mapping, its permissions ("rw-p"), the file's device and inode (0 where anonymous)
// and its path or name ("[vdso]"; empty where anonymous). None where the file cannot be read.
struct Mapping {
  uint64_t begin = 0, end = 0;
  std::string perms, path;
  unsigned long major = 0, minor = 0;
  uint64_t inode = 0;
};
std::vector<Mapping> process_mappings() {
  std::ifstream maps("/proc/self/maps");
  std::vector<Mapping> out;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string span, offset, device;
    Mapping m;
    fields >> span >> m.perms >> offset >> device >> m.inode;
    std::getline(fields >> std::ws, m.path);
    const size_t dash = span.find('-'), colon = device.find(':');
    if (dash == std::string::npos || colon == std::string::npos || m.perms.size() < 2) continue;
    m.begin = std::stoull(span.substr(0, dash), nullptr, 16);
    m.end = std::stoull(span.substr(dash + 1), nullptr, 16);
    m.major = std::stoul(device.substr(0, colon), nullptr, 16);
    m.minor = std::stoul(device.substr(colon + 1), nullptr, 16);
    out.push_back(std::move(m));
  }
  return out;
}

// The pages of every loaded object (the runner, its libraries, the candidate), of the vDSO and of the
// kernel's clock data the vDSO reads: what a candidate would remap or unprotect to hook the clock.
std::vector<AddressRange> loaded_images() {
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  std::vector<AddressRange> ranges;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        AddressRange image{UINT64_MAX, 0};
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          image.begin = std::min<uint64_t>(image.begin, info->dlpi_addr + ph.p_vaddr);
          image.end = std::max<uint64_t>(image.end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        if (image.begin < image.end) static_cast<std::vector<AddressRange>*>(data)->push_back(image);
        return 0;
      },
      &ranges);
  for (const Mapping& m : process_mappings())
    if (m.path.rfind("[vvar", 0) == 0 || m.path == "[vdso]") ranges.push_back({m.begin, m.end});
  for (auto& r : ranges) {
    r.begin &= ~(page - 1);
    r.end = (r.end + page - 1) & ~(page - 1);
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  std::vector<AddressRange> merged;
  for (const auto& r : ranges)
    if (!merged.empty() && r.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, r.end);
    else merged.push_back(r);
  return merged;
}

}  // namespace

std::string apply_syscall_filter(bool after_load, bool strict, bool threads_after_load) {
  // Read before the filter below refuses to open /proc/self/maps.
  const std::vector<AddressRange> images = after_load && strict ? loaded_images() : std::vector<AddressRange>{};
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) throw std::runtime_error("seccomp_init failed");
  // Threads started earlier (OpenMP's team) too; a GPU driver's own threads are left alone (untested).
  if (strict) seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  // KILL where only an attack would make the call; EPERM where a library might try it harmlessly.
  const uint32_t kill = SCMP_ACT_KILL_PROCESS, refuse = SCMP_ACT_ERRNO(EPERM);
  const uint64_t self = uint64_t(getpid());
  std::string description;
  if (!after_load) {
    // Stage 1 stays in force after loading: filters only ever add up.
    for (int sc : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(socket),
                   SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
                   SCMP_SYS(accept4), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                   SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(chroot), SCMP_SYS(pivot_root), SCMP_SYS(setuid),
                   SCMP_SYS(setgid), SCMP_SYS(setreuid), SCMP_SYS(setregid), SCMP_SYS(setresuid),
                   SCMP_SYS(setresgid), SCMP_SYS(setgroups), SCMP_SYS(setfsuid), SCMP_SYS(setfsgid),
                   SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(kexec_load), SCMP_SYS(reboot), SCMP_SYS(init_module),
                   SCMP_SYS(finit_module), SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
                   SCMP_SYS(io_uring_setup),
                   // other processes: signals, descriptors, memory advice, comparisons of their kernel objects
                   SCMP_SYS(tkill), SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd),
                   SCMP_SYS(process_madvise), SCMP_SYS(kcmp),
                   // the machine: segment tables, I/O ports, keyrings shared with the session, the clock
                   SCMP_SYS(modify_ldt), SCMP_SYS(iopl), SCMP_SYS(ioperm), SCMP_SYS(keyctl), SCMP_SYS(add_key),
                   SCMP_SYS(request_key), SCMP_SYS(clock_settime), SCMP_SYS(settimeofday)})
      seccomp_rule_add(ctx, kill, sc, 0);
    // Threads are fine (OpenMP); new processes are not. clone3 hides its flags, so make glibc fall back to clone.
    seccomp_rule_add(ctx, kill, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Signals only to this process (raise, abort and glibc's own thread signals name it).
    for (int sc : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)})
      seccomp_rule_add(ctx, kill, sc, 1, SCMP_A0(SCMP_CMP_NE, self));
    // READ_IMPLIES_EXEC would make readable mappings executable behind the checks below; 0xffffffff only queries.
    seccomp_rule_add(ctx, kill, SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_NE, 0xffffffffull));
    // Scheduling and priorities: another process's would outlast the runner (and be inherited by the
    // runners ksearch starts later); the runner's own would disturb the machine. Limits only go down,
    // before loading; reading them (prlimit64 without a new value) is fine.
    seccomp_rule_add(ctx, refuse, SCMP_SYS(sched_setaffinity), 1, SCMP_A0(SCMP_CMP_NE, self));
    seccomp_rule_add(ctx, refuse, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_NE, 0));
    for (int sc : {SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam), SCMP_SYS(sched_setattr),
                   SCMP_SYS(setpriority), SCMP_SYS(ioprio_set), SCMP_SYS(setrlimit), SCMP_SYS(adjtimex),
                   SCMP_SYS(clock_adjtime), SCMP_SYS(pkey_alloc),
                   // System V and POSIX IPC objects outlive the runner and are shared with other processes.
                   SCMP_SYS(shmget), SCMP_SYS(shmat), SCMP_SYS(msgget), SCMP_SYS(semget), SCMP_SYS(mq_open)})
      seccomp_rule_add(ctx, refuse, sc, 0);
    for (int sc : {SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
                   SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir), SCMP_SYS(symlink), SCMP_SYS(symlinkat),
                   SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(chmod), SCMP_SYS(fchmod), SCMP_SYS(fchmodat),
                   SCMP_SYS(truncate), SCMP_SYS(ftruncate)})
      seccomp_rule_add(ctx, refuse, sc, 0);
    // Opening files for writing is refused in both stages; after loading (strict), opening anything is.
    for (uint64_t flag : {uint64_t(O_WRONLY), uint64_t(O_RDWR), uint64_t(O_CREAT), uint64_t(O_TRUNC), uint64_t(O_APPEND)}) {
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag));
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag));
    }
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(creat), 0);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
    seccomp_rule_add(ctx, kill, SCMP_SYS(mprotect), 2, SCMP_A0(SCMP_CMP_EQ, kRunnerHeldTable), SCMP_A2(SCMP_CMP_NE, PROT_READ));
    description = "seccomp: no processes, network, ptrace, file writes, signals outside the runner, scheduling, "
                  "priority or limit changes, prctl beyond naming and queries, no change to the runner's guard region";
  } else {
    if (strict) {
      for (int sc : {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(creat), SCMP_SYS(openat2), SCMP_SYS(open_by_handle_at)})
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), sc, 0);
      seccomp_rule_add(ctx, refuse, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
      seccomp_rule_add(ctx, refuse, SCMP_SYS(pkey_mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
      seccomp_rule_add(ctx, refuse, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
      seccomp_rule_add(ctx, refuse, SCMP_SYS(memfd_create), 0);
      // A handler (a timer's signal, SIGIO on a descriptor) would run the candidate's code between calls, on
      // whichever thread the signal finds, off every timed call's clock and CPU time. Queries pass (no new action).
      seccomp_rule_add(ctx, refuse, SCMP_SYS(rt_sigaction), 1, SCMP_A1(SCMP_CMP_NE, 0));
      description = "after loading: no file opens, no executable memory, no change to the mappings of loaded code, "
                    "no signal handlers";
    } else {
      // A GPU driver maps executable memory and opens its files after loading.
      description = "after loading: the driver maps code and opens files";
    }
  }
  // However its code reached pthread_create (a symbol table read from memory passes every name and import check),
  // a thread started after the runtime's own is the candidate's: it could work on after a call returned and its
  // timing stopped, or before the next began. A strict sandbox refuses it from the first stage on (filters add up),
  // which also covers threads that load-time code would start; a GPU driver may start threads while loading.
  // pthread_create reports EAGAIN.
  if (!threads_after_load && after_load != strict) {
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAGAIN), SCMP_SYS(clone), 1,
                     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    description += "; no new threads";
  }
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) throw std::runtime_error(std::string("seccomp_load failed: ") + std::strerror(-rc));
  if (!after_load) {
    // prctl could drop the parent-death signal (PR_SET_PDEATHSIG), make the runner traceable
    // (PR_SET_DUMPABLE, PR_SET_PTRACER) or route the runner's own system calls to a candidate's
    // signal handler (PR_SET_SYSCALL_USER_DISPATCH): only naming and queries are left.
    load_program(on_syscall(__NR_prctl, unless_argument_one_of(0,
                                                               {PR_SET_NAME, PR_GET_NAME, PR_SET_VMA, PR_GET_DUMPABLE,
                                                                PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS,
                                                                PR_CAPBSET_READ, PR_GET_SECCOMP},
                                                               SECCOMP_RET_ERRNO | EPERM)),
                 strict);
    // The runner's guard region (sandbox.hpp) and everything below it: only a mapping whose address the kernel
    // picks (mmap's and mremap's address 0) may name an address there; the held table may be made read-only.
    const uint32_t kill_process = SECCOMP_RET_KILL_PROCESS;
    const std::vector<AddressRange> from_zero = {{0, kRunnerGuardEnd}}, from_one = {{1, kRunnerGuardEnd}},
                                    but_the_table = {{0, kRunnerHeldTable}, {kRunnerHeldTable + 1, kRunnerGuardEnd}};
    Program guard;
    for (const auto& sf : on_syscall(__NR_mprotect, when_argument_in(0, but_the_table, kill_process))) guard.push_back(sf);
    for (long nr : {__NR_pkey_mprotect, __NR_munmap, __NR_madvise})
      for (const auto& sf : on_syscall(nr, when_argument_in(0, from_zero, kill_process))) guard.push_back(sf);
    for (const auto& sf : on_syscall(__NR_mmap, when_argument_in(0, from_one, kill_process))) guard.push_back(sf);
    Program remap = when_argument_in(0, from_zero, kill_process);
    for (const auto& sf : when_argument_in(4, from_one, kill_process)) remap.push_back(sf);
    for (const auto& sf : on_syscall(__NR_mremap, remap)) guard.push_back(sf);
    load_program(guard, strict);
  } else if (strict) {
    // The runner's GOT is read-only (full RELRO, so is the dynamic loader's copy of the vDSO's clock):
    // changing the protection of, replacing or moving any page of loaded code kills the runner. A range
    // that starts below an image reaches its read-only data only through its code, which then loses
    // its execute permission (refused above).
    const uint32_t kill_process = SECCOMP_RET_KILL_PROCESS;
    Program program;
    for (long nr : {__NR_mprotect, __NR_pkey_mprotect, __NR_munmap, __NR_mmap})
      for (const auto& sf : on_syscall(nr, when_argument_in(0, images, kill_process))) program.push_back(sf);
    Program remap = when_argument_in(0, images, kill_process);
    for (const auto& sf : when_argument_in(4, images, kill_process)) remap.push_back(sf);
    for (const auto& sf : on_syscall(__NR_mremap, remap)) program.push_back(sf);
    load_program(program, true);
  }
  return description;
}

namespace {
// The part of an object's writable segment that becomes read-only after relocation (RELRO), as its header gives it;
// empty where it has none.
std::pair<uintptr_t, uintptr_t> relro_range(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
      const uintptr_t begin = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      return {begin, begin + info->dlpi_phdr[i].p_memsz};
    }
  return {0, 0};
}

// An object's writable data: its writable segments but the RELRO part (to its page's end).
std::vector<std::pair<uintptr_t, uintptr_t>> writable_data(const dl_phdr_info* info) {
  auto [relro_begin, relro_end] = relro_range(info);
  relro_end = (relro_end + 4095) & ~uintptr_t(4095);
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    if (relro_end > begin && relro_begin < end) {
      if (relro_begin > begin) ranges.emplace_back(begin, relro_begin);
      begin = std::max(begin, relro_end);
    }
    if (end > begin) ranges.emplace_back(begin, end);
  }
  return ranges;
}

bool is_library(const dl_phdr_info* info, const std::string& path) {
  std::error_code ec;
  return info->dlpi_name && *info->dlpi_name && !path.empty() && std::filesystem::equivalent(info->dlpi_name, path, ec);
}

struct SearchContext {
  std::string path;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  bool found = false;
};

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* ctx = static_cast<SearchContext*>(data);
  if (!is_library(info, ctx->path)) return 0;
  ctx->found = true;
  ctx->ranges = writable_data(info);
  return 1;
}
}  // namespace

namespace {
// The writable mappings of `library` by the kernel's account (/proc/self/maps): those of its file (device and inode)
// and the anonymous ones that continue them (its .bss past the file's last page), merged.
std::vector<MemoryRange> writable_mappings_of(const std::string& library) {
  struct stat file {};
  if (stat(library.c_str(), &file) != 0) throw std::runtime_error("cannot stat the loaded library " + library);
  const std::vector<Mapping> mappings = process_mappings();
  if (mappings.empty()) throw std::runtime_error("cannot read /proc/self/maps");
  std::vector<MemoryRange> mine;
  for (const Mapping& m : mappings) {
    const bool of_file = m.inode == file.st_ino && m.major == major(file.st_dev) && m.minor == minor(file.st_dev);
    const bool continues = m.inode == 0 && m.path.empty() && !mine.empty() && mine.back().end == m.begin;
    if ((!of_file && !continues) || m.perms[1] != 'w') continue;
    if (!mine.empty() && mine.back().end == m.begin) mine.back().end = m.end;
    else mine.push_back({m.begin, m.end});
  }
  return mine;
}
}  // namespace

std::vector<MemoryRange> writable_segments(const std::string& library) {
  SearchContext ctx;
  ctx.path = library;
  dl_iterate_phdr(visit, &ctx);
  if (!ctx.found) throw std::runtime_error("loaded library not found in the process: " + library);
  // The loader's list of objects is writable memory the candidate's load-time code could have changed: every range is
  // checked against the kernel's mappings, so that resetting the candidate's data writes nothing else.
  const std::vector<MemoryRange> mappings = writable_mappings_of(library);
  std::vector<MemoryRange> ranges;
  for (const auto& [begin, end] : ctx.ranges) {
    const bool inside = std::any_of(mappings.begin(), mappings.end(),
                                    [&](const MemoryRange& m) { return m.begin <= begin && end <= m.end; });
    if (!inside)
      throw std::runtime_error("the loader lists a writable segment of the candidate library outside its mappings");
    ranges.push_back({begin, end});
  }
  return ranges;
}

namespace {
struct CodePointerContext {
  std::string except;
  std::vector<std::pair<uintptr_t, uintptr_t>> code;  // every loaded object's executable segments, sorted
  std::vector<CodePointerTable> tables;
};

int visit_code(dl_phdr_info* info, size_t, void* data) {
  auto* ctx = static_cast<CodePointerContext*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      ctx->code.emplace_back(info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  return 0;
}

// The GOT's function slots outside the object's RELRO range (what stays writable), with their symbols' names:
// the targets of its PLT relocations (JUMP_SLOT) and of its GOT relocations (GLOB_DAT).
std::map<uintptr_t, std::string> writable_got_slots(const dl_phdr_info* info) {
  const ElfW(Addr) base = info->dlpi_addr;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + info->dlpi_phdr[i].p_vaddr);
  const auto [relro_begin, relro_end] = relro_range(info);
  std::map<uintptr_t, std::string> slots;
  if (!dynamic) return slots;
  // The loader relocates these entries to absolute addresses, except in the vDSO.
  auto absolute = [&](ElfW(Addr) p) { return p < base ? p + base : p; };
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* tables[2] = {};
  size_t sizes[2] = {};
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_JMPREL) tables[0] = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_PLTRELSZ) sizes[0] = d->d_un.d_val;
    if (d->d_tag == DT_RELA) tables[1] = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_RELASZ) sizes[1] = d->d_un.d_val;
  }
  for (int t = 0; t < 2; ++t)
    for (size_t i = 0; tables[t] && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      const auto type = ELF64_R_TYPE(r.r_info);
      if (type != kJumpSlot && type != kGlobalData) continue;
      const uintptr_t slot = base + r.r_offset;
      if (slot >= relro_begin && slot < relro_end) continue;  // read-only once relocated
      const size_t symbol = ELF64_R_SYM(r.r_info);
      slots[slot] = symbols && names && symbol ? names + symbols[symbol].st_name : "";
    }
  return slots;
}

// An object's writable GOT slots (whatever they hold: a weak symbol's slot holds 0) and every other word of its
// writable data that holds an address of code.
int visit_code_pointers(dl_phdr_info* info, size_t, void* data) {
  auto* ctx = static_cast<CodePointerContext*>(data);
  if (is_library(info, ctx->except)) return 0;
  const auto is_code = [&](uintptr_t value) {
    auto it = std::upper_bound(ctx->code.begin(), ctx->code.end(), std::pair{value, UINTPTR_MAX});
    return it != ctx->code.begin() && value < std::prev(it)->second;
  };
  const std::map<uintptr_t, std::string> got = writable_got_slots(info);
  std::map<uintptr_t, const std::string*> held;  // each word, with its GOT symbol where it is a slot
  for (const auto& [slot, name] : got) held[slot] = &name;
  for (const auto& [begin, end] : writable_data(info))
    for (uintptr_t word = (begin + sizeof(uintptr_t) - 1) & ~(sizeof(uintptr_t) - 1); word + sizeof(uintptr_t) <= end;
         word += sizeof(uintptr_t))
      if (is_code(*reinterpret_cast<const uintptr_t*>(word))) held.try_emplace(word, nullptr);
  CodePointerTable table;
  table.object = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the runner";
  for (const auto& [word, symbol] : held) {
    if (symbol) table.got_symbols[table.words.size()] = *symbol;
    table.words.push_back(word);
  }
  if (!table.words.empty()) ctx->tables.push_back(std::move(table));
  return 0;
}
}  // namespace

std::vector<CodePointerTable> code_pointer_tables(const std::string& except_library) {
  CodePointerContext ctx;
  ctx.except = except_library;
  dl_iterate_phdr(visit_code, &ctx);
  std::sort(ctx.code.begin(), ctx.code.end());
  dl_iterate_phdr(visit_code_pointers, &ctx);
  return std::move(ctx.tables);
}

void die_with_parent() { prctl(PR_SET_PDEATHSIG, SIGKILL); }

std::vector<int> open_descriptors() {
  std::vector<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    fds.push_back(std::stoi(entry.path().filename().string()));
  return fds;
}

}  // namespace ksearch::runner
