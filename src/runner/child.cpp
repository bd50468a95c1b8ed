#include "runner/child.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "core/text.hpp"
#include "runner/library_state.hpp"
#include "runner/code_pointers.hpp"
#include "runner/protocol.hpp"
#include "runner/sandbox.hpp"

namespace ksearch::runner {

void RunnerDevice::prepare(const CallArgs&) { reset_state(); }

double RunnerDevice::timed_call(const CallArgs& args, bool null_call) {
  const double start = now_ms();
  if (!null_call) call(args);
  return now_ms() - start;
}

void RunnerDevice::keep_mix_sources(const CallArgs&, const CallArgs&) {
  throw std::runtime_error("this runner does not mix inputs on a device");
}

nlohmann::json RunnerDevice::extra(const nlohmann::json& command) {
  throw std::runtime_error("unknown runner command: " + command.value("cmd", std::string("?")));
}

namespace {
LibraryState candidate_state;
CodePointers held_code_pointers;
// Where the guard region could not be mapped: what it would hold, in writable memory.
std::vector<HeldWord> unguarded_held_words;
std::vector<StateSegment> unguarded_state_segments;
std::string tampered;  // set once the candidate changed what the runner holds: every later command fails with it

// What decides the runner's checks after the candidate's code ran, in the guard region (sandbox.hpp), which the code
// below names by its fixed address: a pointer to it or a flag in writable memory would be the candidate's to change
// (a red-team candidate cleared the "code pointers held" flag, turning every check off). The device object is held
// too: its virtual calls between timed calls (`prepare`, `collect`) would run the candidate's code, off the clock,
// through a vtable pointer it redirected.
struct RunnerGuard {  // the first page: read-only before any candidate code runs
  uint64_t magic;
  uintptr_t device;         // the RunnerDevice's address
  uintptr_t device_vtable;  // its vtable pointer
};
constexpr size_t kMaxStateSegments = 64;  // a shared library has one or two writable segments
struct HeldTable {  // the rest: read-only once the candidate is loaded
  uint64_t state_count;
  StateSegment state[kMaxStateSegments];  // the candidate's writable segments reset before each call (LibraryState)
  uint64_t count;
  HeldWord words[1];  // `count` of them, to the region's end
};
constexpr uint64_t kGuardMagic = 0x4b53656172636847ull;
constexpr size_t kHeldCapacity = (kRunnerHeldTableBytes - offsetof(HeldTable, words)) / sizeof(HeldWord);

RunnerGuard* guard_page() { return reinterpret_cast<RunnerGuard*>(kRunnerGuardPage); }
HeldTable* held_table() { return reinterpret_cast<HeldTable*>(kRunnerHeldTable); }

// Maps the guard region before any candidate code runs; "" or why it could not be (the platform's lowest address
// for mappings above it): the held words then stay in writable memory.
std::string arm_guard(RunnerDevice& device) {
  const size_t bytes = kRunnerGuardEnd - kRunnerGuardPage;
#ifdef MAP_FIXED_NOREPLACE
  constexpr int kAtTheAddress = MAP_FIXED_NOREPLACE;
#else  // other systems take the address as a hint, checked below
  constexpr int kAtTheAddress = 0;
#endif
  void* region = mmap(guard_page(), bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | kAtTheAddress, -1, 0);
  if (region != guard_page()) {
    const std::string why = std::strerror(errno);
    if (region != MAP_FAILED) munmap(region, bytes);
    return "cannot map it at its address: " + why;
  }
  *guard_page() = {kGuardMagic, reinterpret_cast<uintptr_t>(&device), *reinterpret_cast<const uintptr_t*>(&device)};
  if (mprotect(guard_page(), kRunnerGuardPageBytes, PROT_READ) != 0) return std::string("mprotect: ") + std::strerror(errno);
  return "";
}

// The guard region where it was armed (it stays mapped: the filter refuses to change it).
bool guarded() {
  unsigned char resident = 0;
  return mincore(guard_page(), kRunnerGuardPageBytes, &resident) == 0;
}

// Captures the candidate's writable segments, listed in the guard region's table where it was armed (sealed with the
// held code pointers).
void capture_state(const std::string& library) {
  if (!guarded()) {
    unguarded_state_segments.resize(kMaxStateSegments);
    unguarded_state_segments.resize(candidate_state.capture(library, unguarded_state_segments.data(), kMaxStateSegments));
    return;
  }
  held_table()->state_count = candidate_state.capture(library, held_table()->state, kMaxStateSegments);
}

// Makes the guard region's table of held code pointers read-only with `count` of them: once, after the candidate's
// load-time code and before the system-call filter's second stage (no candidate code runs beside it).
void seal_held_table(size_t count) {
  held_table()->count = count;
  mprotect(held_table(), kRunnerHeldTableBytes, PROT_READ);
}

// Captures the held code pointers, into the guard region's table where it was armed.
size_t hold_code_pointers_of(const std::string& library, const std::vector<std::string>& runtime) {
  if (!guarded()) {
    unguarded_held_words.resize(kHeldCapacity);
    unguarded_held_words.resize(held_code_pointers.capture(library, runtime, unguarded_held_words.data(), kHeldCapacity));
    return unguarded_held_words.size();
  }
  const size_t count = held_code_pointers.capture(library, runtime, held_table()->words, kHeldCapacity);
  seal_held_table(count);
  return count;
}

// The device object the commands go to: by the guard's address where it was armed. The runner's own reference to it
// lives in writable memory (its stack), which a candidate redirected to a copy of the object with a vtable of its own
// (`device_reference_swap`): its `prepare` and `collect` ran there, off the clock, past the vtable check below.
RunnerDevice& commanded_device(RunnerDevice& own) {
  if (!guarded()) return own;
  return *reinterpret_cast<RunnerDevice*>(*static_cast<const volatile uintptr_t*>(&guard_page()->device));
}

// The device's vtable pointer, checked and put back; "" or what changed.
std::string check_device() {
  const RunnerGuard& guard = *guard_page();
  if (guard.magic != kGuardMagic) return "the runner's guard page";
  auto* vtable = reinterpret_cast<uintptr_t*>(guard.device);
  if (*vtable == guard.device_vtable) return "";
  *vtable = guard.device_vtable;
  return "the vtable pointer of the runner's device object";
}
}  // namespace

void hold_code_pointers(bool immediate_only) {
  std::string change;
  if (guarded()) {
    change = check_device();
    if (change.empty()) change = held_code_pointers.check_and_restore(held_table()->words, held_table()->count, immediate_only);
  } else {
    change = held_code_pointers.check_and_restore(unguarded_held_words.data(), unguarded_held_words.size(), immediate_only);
  }
  // The C++ runtime calls its new_handler when an allocation fails: the runner's own allocation in a command's
  // bookkeeping, made to fail by the candidate, would run the candidate's code there. No runner code sets one.
  if (change.empty() && std::get_new_handler() != nullptr) {
    std::set_new_handler(nullptr);
    change = "the C++ runtime's new_handler";
  }
  if (!change.empty() && tampered.empty())
    tampered = "the candidate changed " + change +
               " (put back): the runner's own calls through it would run the candidate's code, between timed calls, "
               "inside the runner's bookkeeping or in place of its timer";
  if (!tampered.empty()) throw std::runtime_error(tampered);
}

void RunnerDevice::reset_state() {
  if (guarded()) LibraryState::restore(held_table()->state, held_table()->state_count);
  else LibraryState::restore(unguarded_state_segments.data(), unguarded_state_segments.size());
}

std::string candidate_exception(const std::string& what) {
  constexpr size_t kMaxChars = 300;
  // One line of printable text: a terminal's control sequences (ESC [ ...) could rewrite what ksearch printed before.
  const std::string text = printable(what.substr(0, kMaxChars), false);
  return "the candidate threw an exception: \"" + text + (what.size() > kMaxChars ? "...\"" : "\"");
}

double now_ms() {
  // clock_gettime through the runner's own GOT, read-only (full RELRO): std::chrono would call it
  // through libstdc++'s, which is writable (lazy binding) and so open to a candidate's hook.
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
}

namespace {

RunnerArgs parse_args(int argc, char** argv) {
  RunnerArgs args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const uint64_t value = std::stoull(argv[i + 1]);
    if (flag == "--command-fd") args.command_fd = int(value);
    else if (flag == "--result-fd") args.result_fd = int(value);
    else if (flag == "--shm-fd") args.shm_fd = int(value);
    else if (flag == "--memory") args.memory_limit_bytes = value;
    else if (flag == "--cpu-seconds") args.cpu_seconds = value;
    else if (flag == "--under-checker") args.under_checker = value != 0;
  }
  if (args.command_fd < 0 || args.result_fd < 0 || args.shm_fd < 0)
    throw std::runtime_error("this program is started by ksearch, not by hand");
  return args;
}

class SharedMemory {
 public:
  explicit SharedMemory(int fd) : fd_(fd) {}
  void map(size_t bytes) {
    if (base_) munmap(base_, size_);
    base_ = nullptr;
    size_ = bytes;
    if (bytes == 0) return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map shared memory: ") + std::strerror(errno));
    base_ = static_cast<char*>(p);
  }
  void* at(int64_t offset, size_t bytes) const {
    if (offset < 0) return nullptr;
    if (size_t(offset) + bytes > size_) throw std::runtime_error("tensor outside the shared memory");
    return base_ + offset;
  }

 private:
  int fd_;
  char* base_ = nullptr;
  size_t size_ = 0;
};

void close_inherited_descriptors(const std::vector<int>& keep) {
  for (int fd : open_descriptors())  // the listing's own descriptor is among them, already closed: harmless
    if (fd > 2 && std::find(keep.begin(), keep.end(), fd) == keep.end()) close(fd);
}

// The artifact with every path under one of `handles` named through its descriptor.
nlohmann::json reachable_paths(const nlohmann::json& value, const PathHandles& handles) {
  if (value.is_string()) return handles.reachable(value.get<std::string>());
  nlohmann::json result = value;
  if (result.is_structured())
    for (auto& item : result) item = reachable_paths(item, handles);
  return result;
}

CallArgs call_args(const SharedMemory& shm, const nlohmann::json& set, const nlohmann::json& command) {
  CallArgs args;
  const auto& bytes = command.at("bytes");
  const auto& outputs = command.at("outputs");
  for (size_t i = 0; i < set.size(); ++i) {
    const size_t n = bytes.at(i).get<size_t>();
    args.ptrs.push_back(shm.at(set.at(i).get<int64_t>(), n));
    args.bytes.push_back(n);
    args.is_output.push_back(outputs.at(i).get<bool>());
  }
  args.ints = command.at("ints").get<std::vector<int64_t>>();
  args.floats = command.at("floats").get<std::vector<double>>();
  args.wake_threads = command.value("wake_threads", false);
  if (command.contains("mix"))
    for (const auto& m : command.at("mix"))
      args.mix.push_back(m.is_null() ? std::nullopt
                                     : std::optional<CallArgs::Mix>({m.at("seed").get<uint64_t>(), m.at("element_bytes").get<size_t>()}));
  return args;
}

}  // namespace

int runner_main(int argc, char** argv, RunnerDevice& own_device) {
  RunnerArgs args;
  try {
    args = parse_args(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  die_with_parent();  // never outlive ksearch
  if (getppid() == 1) return 3;
  // Descriptors inherited by accident (the parent's own pipes, databases, logs) are no business of a
  // candidate's; and a write to a closed pipe must fail with EPIPE rather than kill the runner.
  if (!args.under_checker) close_inherited_descriptors({args.command_fd, args.result_fd, args.shm_fd});
  signal(SIGPIPE, SIG_IGN);
  apply_resource_limits(args.memory_limit_bytes, args.cpu_seconds);
  SharedMemory shm(args.shm_fd);
  const std::string guard_error = args.under_checker ? "under a memory checker" : arm_guard(own_device);
  std::vector<std::filesystem::path> readable;
  bool loaded = false;

  nlohmann::json nonce;  // echoed in every reply so the parent can tell our frames from forged ones
  auto reply = [&](nlohmann::json message) {
    message["nonce"] = nonce;
    return write_frame(args.result_fd, message);
  };
  std::string init_error;  // reported as the answer to the first command, which carries the nonce

  try {
    readable = own_device.initialize();
  } catch (const std::exception& e) {
    init_error = std::string("runner initialization failed: ") + e.what();
  }

  while (true) {
    auto command = read_frame(args.command_fd, -1);
    if (!command) return 0;  // the parent closed the pipe
    const std::string cmd = command->value("cmd", "");
    nonce = command->value("nonce", nlohmann::json());
    if (!init_error.empty()) {
      reply({{"ok", false}, {"error", init_error}});
      return 4;
    }
    try {
      RunnerDevice& device = commanded_device(own_device);
      if (!tampered.empty() && cmd != "exit") throw std::runtime_error(tampered);
      if (loaded && cmd != "exit") hold_code_pointers(true);  // before any virtual call: candidate threads may have run since
      if (cmd == "exit") {
        reply({{"ok", true}});
        return 0;
      } else if (cmd == "load") {
        if (loaded) throw std::runtime_error("a candidate is already loaded");
        std::vector<std::filesystem::path> artifact_paths;
        for (const auto& p : command->at("artifact").value("readable", std::vector<std::string>{}))
          artifact_paths.emplace_back(p);
        auto paths = readable;
        paths.insert(paths.end(), artifact_paths.begin(), artifact_paths.end());
        const PathHandles handles(artifact_paths);
        // First: it opens the paths it allows.
        std::string sandbox = args.under_checker ? "under a memory checker: no filesystem or system-call filters"
                                                 : restrict_filesystem(paths);
        // A GPU driver (not strict) keeps uid 0, without capabilities: it is untested as another user.
        sandbox += "; " + drop_privileges(device.strict_sandbox());
        device.start_threads();
        if (!args.under_checker) sandbox += "; " + apply_syscall_filter(false, device.strict_sandbox(), device.threads_after_load());
        const nlohmann::json artifact = reachable_paths(command->at("artifact"), handles);
        device.load(artifact);
        const std::string library = artifact.value("library", std::string());
        if (!library.empty()) capture_state(library);
        if (!args.under_checker && std::getenv("LD_BIND_NOW")) {
          const size_t held = hold_code_pointers_of(library, device.runtime_libraries());
          sandbox += "; " + std::to_string(held) + " code pointers of the loaded libraries held (" +
                     std::to_string(held_code_pointers.got_slots()) + " GOT slots)";
        } else {
          if (guarded()) seal_held_table(0);
          sandbox += "; code pointers not held (" +
                     std::string(args.under_checker ? "under a memory checker" : "LD_BIND_NOW unset: bound lazily") + ")";
        }
        sandbox += guard_error.empty() ? "; what the runner holds kept on its read-only guard region"
                                       : "; no guard region (" + guard_error + ")";
        if (!args.under_checker)
          sandbox += "; " + apply_syscall_filter(true, device.strict_sandbox(), device.threads_after_load());
        loaded = true;
        hold_code_pointers();  // the candidate's load-time code ran
        reply({{"ok", true}, {"sandbox", sandbox}});
      } else if (cmd == "map") {
        shm.map(command->at("bytes").get<size_t>());
        reply({{"ok", true}});
      } else if (cmd == "call") {
        if (!loaded) throw std::runtime_error("no candidate loaded");
        CallArgs call = call_args(shm, command->at("set"), *command);
        device.reset_state();
        const double start = now_ms();
        device.call(call);
        const double ms = now_ms() - start;
        hold_code_pointers();
        reply({{"ok", true}, {"ms", ms}});
      } else if (cmd == "prepare") {
        if (!loaded) throw std::runtime_error("no candidate loaded");
        device.prepare(call_args(shm, command->at("set"), *command));
        hold_code_pointers();
        reply({{"ok", true}});
      } else if (cmd == "timed_call") {
        // A null call calibrates the same path (parsing included), before the candidate is loaded and after.
        const bool null_call = command->value("null", false);
        if (!loaded && !null_call) throw std::runtime_error("no candidate loaded");
        const CallArgs call = command->contains("set") ? call_args(shm, command->at("set"), *command) : CallArgs{};
        const double ms = device.timed_call(call, null_call);
        hold_code_pointers();
        reply({{"ok", true}, {"ms", ms}});
      } else if (cmd == "keep_mix_sources") {
        if (!loaded) throw std::runtime_error("no candidate loaded");
        device.keep_mix_sources(call_args(shm, command->at("set"), *command), call_args(shm, command->at("set_b"), *command));
        hold_code_pointers();
        reply({{"ok", true}});
      } else if (cmd == "collect") {
        if (!loaded) throw std::runtime_error("no candidate loaded");
        device.collect(call_args(shm, command->at("set"), *command));
        hold_code_pointers();
        reply({{"ok", true}});
      } else {
        nlohmann::json result = device.extra(*command);
        hold_code_pointers();
        result["ok"] = true;
        reply(result);
      }
    } catch (const std::exception& e) {
      std::string error = e.what();
      try {
        hold_code_pointers();  // the candidate's code may have run before the failure
      } catch (const std::exception& changed) {
        error = changed.what();
      }
      if (!reply({{"ok", false}, {"error", error}})) return 5;
    }
  }
}

}  // namespace ksearch::runner
