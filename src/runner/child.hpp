#pragma once
// The child side of the runner protocol, shared by every backend's runner executable.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ksearch::runner {

// One call's arguments, with tensor pointers into the shared memory (host addresses).
struct CallArgs {
  std::vector<void*> ptrs;         // nullptr for absent optional tensors
  std::vector<size_t> bytes;       // size of each tensor
  std::vector<bool> is_output;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

struct TimingRequest {
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 50;
  double target_seconds = 1.0;   // stop adding repetitions after this much timed work
  size_t flush_bytes = 0;        // cache-flush buffer written between repetitions
};

// What a backend's runner implements. Everything else (protocol, sandbox, limits) is shared.
class RunnerDevice {
 public:
  virtual ~RunnerDevice() = default;
  // Before the sandbox closes: open drivers and devices. Paths the runner must still read afterwards
  // (system libraries are always readable) are returned.
  virtual std::vector<std::filesystem::path> initialize() { return {}; }
  // Called once privileges are dropped, before the system-call filter: start the threads the candidate
  // will run on (OpenMP's team binds its threads under OMP_PROC_BIND, which the filter refuses later).
  virtual void start_threads() {}
  // Load the compiled candidate described by `artifact` (e.g. {"library": path}). Throw on failure.
  virtual void load(const nlohmann::json& artifact) = 0;
  // Run the candidate once; all its work must be finished and its outputs in the host buffers on return.
  virtual void call(const CallArgs& args) = 0;
  // Time repeated calls, rotating over `sets`; returns milliseconds per call.
  virtual std::vector<double> time(const std::vector<CallArgs>& sets, const TimingRequest& request) = 0;
  // Backend-specific commands (e.g. measuring ceilings). Unknown ones throw.
  virtual nlohmann::json extra(const nlohmann::json& command);
  // Whether the strict sandbox (no file opens after load, no executable mappings) can apply.
  virtual bool strict_sandbox() const { return true; }
};

// Puts the candidate's writable data back as it was after loading (see LibraryState). The runner
// calls it before every untimed call; timing loops must call it before every repetition.
void reset_candidate_state();

// Host-side timing loop with a cache flush and a state reset between repetitions; `invoke` runs one call.
template <class Invoke>
std::vector<double> time_host_calls(const std::vector<CallArgs>& sets, const TimingRequest& request, Invoke&& invoke);

int runner_main(int argc, char** argv, RunnerDevice& device);

// Writes every byte of a buffer of `bytes` bytes, so the last-level cache holds none of the inputs.
void flush_caches(size_t bytes);
double now_ms();

template <class Invoke>
std::vector<double> time_host_calls(const std::vector<CallArgs>& sets, const TimingRequest& request, Invoke&& invoke) {
  for (int i = 0; i < request.warmup; ++i) {
    reset_candidate_state();
    invoke(sets[size_t(i) % sets.size()]);
  }
  std::vector<double> times;
  double total = 0;
  for (int rep = 0; rep < request.max_reps; ++rep) {
    if (rep >= request.min_reps && total / 1000.0 >= request.target_seconds) break;
    flush_caches(request.flush_bytes);
    reset_candidate_state();
    const CallArgs& args = sets[size_t(rep) % sets.size()];
    const double start = now_ms();
    invoke(args);
    const double elapsed = now_ms() - start;
    times.push_back(elapsed);
    total += elapsed;
  }
  return times;
}

}  // namespace ksearch::runner
