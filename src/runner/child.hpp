#pragma once
// The child side of the runner protocol, shared by every backend's runner executable.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
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
  // For `prepare` on a device that mixes inputs itself (see keep_mix_sources): per tensor, the mix that
  // replaces uploading it (tasks/mix.hpp); empty when the inputs are uploaded.
  struct Mix {
    uint64_t seed = 0;
    size_t element_bytes = 0;
  };
  std::vector<std::optional<Mix>> mix;
  // For `prepare`: wake the host threads the candidate's calls use (the cpu runner's OpenMP team), asleep until then.
  bool wake_threads = false;
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
  // Timing is driven by the evaluator one repetition at a time, so that each repetition gets inputs
  // staged just before it and ksearch can hold the runner's clock against its own (see EVALUATION.md).
  // prepare: untimed set-up of one repetition on the host buffers `args` (candidate state reset; devices
  // with their own memory also upload, poison and flush their caches). timed_call: one call, timed from its start until all its work
  // is done; `null_call` times the same path with nothing called, to calibrate the overhead.
  // collect: the tensors' contents back into the host buffers (for devices with their own memory).
  // (ksearch measures what `prepare` and `collect` cost from outside the process, by its clock and the kernel's
  // account of the runner's CPU time: work beyond the calibrated cost is the candidate's, charged to the call.)
  virtual void prepare(const CallArgs& args);
  // Puts the candidate's state back as it was after loading, before every call and in every prepare: its
  // writable data (see LibraryState); devices add their runtimes' settings a candidate can change.
  virtual void reset_state();
  virtual double timed_call(const CallArgs& args, bool null_call);
  virtual void collect(const CallArgs&) {}
  // Devices with their own memory can make each repetition's inputs there: this keeps the inputs of two
  // host buffer sets on the device as the sources of the mixes that later `prepare`s ask for. Making
  // them on the host and uploading them costs more than the call for large tensors.
  virtual void keep_mix_sources(const CallArgs& a, const CallArgs& b);
  // Backend-specific commands (e.g. measuring ceilings). Unknown ones throw.
  virtual nlohmann::json extra(const nlohmann::json& command);
  // Whether the strict sandbox (no file opens after load, no executable mappings) can apply.
  virtual bool strict_sandbox() const { return true; }
  // Whether the runtime may start threads after the candidate is loaded (OpenMP's larger teams, MLX's
  // streams). Where it may not, a thread started then is the candidate's and the sandbox refuses it.
  virtual bool threads_after_load() const { return true; }
  // The libraries (parts of their paths) the runner calls first after each candidate call, to time or finish it
  // (libcudart): their code pointers are checked right after the call too, so that a candidate cannot point one at
  // its own code and put it back from there before the command's end.
  virtual std::vector<std::string> runtime_libraries() const { return {}; }
};

// The message for an exception the candidate's own code threw: quoted, on one line, cut to 300 characters, so
// that it is never read as the runner's or ksearch's words.
std::string candidate_exception(const std::string& what);

// After the candidate's code ran, before the runner allocates: puts back the code pointers of the libraries loaded
// beside it (runner/code_pointers.hpp) and throws, for this command and every later one, if the candidate had
// changed one. `immediate_only`: those of RunnerDevice::runtime_libraries only (cheap enough for a timed region).
void hold_code_pointers(bool immediate_only = false);

// Calls the candidate's entry point through `entry`, turning whatever it throws into candidate_exception's message.
// On return, before the runner calls its runtime again (which may be timing the call), the runtime's code pointers
// are checked.
template <typename Entry>
void call_candidate(Entry&& entry) {
  try {
    entry();
  } catch (const std::exception& e) {
    hold_code_pointers();
    throw std::runtime_error(candidate_exception(e.what()));
  } catch (...) {
    hold_code_pointers();
    throw std::runtime_error("the candidate threw an exception that is not a std::exception");
  }
  hold_code_pointers(true);
}

int runner_main(int argc, char** argv, RunnerDevice& device);

double now_ms();

}  // namespace ksearch::runner
