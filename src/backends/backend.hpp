#pragma once
// backends/backend: the interface every backend implements. A backend is a folder under
// src/backends/ whose CMakeLists adds an object library to KSEARCH_BACKEND_TARGETS and whose code
// registers itself with KSEARCH_REGISTER_BACKEND; everything backend-specific (compiler, runner,
// profile, call convention, code-fence language, export bundle) is behind this interface, so no
// other module names a backend (src/layers.toml keeps backends/<name>/ private to its folder).
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/rules.hpp"
#include "core/build_cache.hpp"
#include "runner/parent.hpp"
#include "tasks/signature.hpp"
#include "tasks/task.hpp"

namespace ksearch::backends {

// The hardware target as prompts and checks see it.
struct HardwareProfile {
  std::string name;   // e.g. "cpu: AMD EPYC 9B14, 2 cores, AVX-512"
  std::string prose;  // markdown for prompts: limits, caches, measured ceilings, advice
  RuleSet rules;      // machine-checked before anything is compiled
};

// Measured once per machine and cached: what the roofline is computed from.
struct Ceilings {
  double bandwidth_bytes_per_s = 0;  // bytes read + written per second
  double flops_per_s = 0;            // fp32 peak (fma = 2 flops)
  std::string method;                // how it was measured
  size_t cache_bytes = 0;            // largest cache: smaller working sets may beat the bandwidth ceiling
  double transcendentals_per_s = 0;  // fp32 exp per second (the kind of unit or code a fast kernel uses)
};

struct BuildResult {
  bool ok = false;
  bool cached = false;
  std::string log;            // compiler messages (short, with the candidate's line numbers)
  nlohmann::json artifact;    // what the runner's load command receives
  double seconds = 0;
};

// The best kernel as files a user takes away (`ksearch export`).
struct ExportFile {
  std::string name;
  std::string contents;
};
struct ExportBundle {
  std::vector<ExportFile> files;  // the first is the kernel
  std::string note;               // printed after the paths (how to build or use them)
};

// A candidate as the compiler sees it, for RuleSet::check_preprocessed (through scan_preprocessed).
struct Preprocessed {
  PreprocessOutcome output;
  std::string candidate_file;  // the candidate's file name in the output's line markers
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string source_extension() const = 0;  // of candidate files, e.g. ".cpp"
  // The Markdown code-fence language of candidates ("cpp", "cuda", "metal"): what prompts ask for
  // and what the LLM proposer extracts.
  virtual std::string code_language() const = 0;
  // How candidates spell their entry point (types of half-precision data, extra parameters).
  virtual tasks::CallConvention call_convention() const { return {}; }
  // Whether candidates can be run here (e.g. a GPU is present); `why` says what is missing.
  virtual bool available(std::string* why) const = 0;
  // Why no candidate for `task` could run here whatever its code (an argument type the backend lacks), said
  // once before anything is built; nothing when the task suits the backend.
  virtual std::optional<std::string> task_unsupported(const tasks::Task&) const { return std::nullopt; }
  // Whether timings are meaningful here (metalsim checks correctness only).
  virtual bool timing_available() const { return true; }
  virtual const HardwareProfile& profile() = 0;
  // What a candidate must define, for listings and prompts.
  virtual std::string entry_description(const tasks::Task& task) const = 0;
  virtual BuildResult build(const tasks::Task& task, const std::string& source) = 0;
  // The candidate preprocessed with the flags build() compiles it with; nullopt where the backend
  // has no preprocessor to run (its text rules are all there is).
  virtual std::optional<Preprocessed> preprocess(const tasks::Task&, const std::string&) { return std::nullopt; }
  virtual std::filesystem::path runner_executable() const = 0;
  virtual runner::RunnerLimits runner_limits() const { return {}; }
  // How long one call of a candidate may take before it counts as a hang (emulators need longer).
  virtual std::chrono::milliseconds call_timeout() const { return std::chrono::seconds(20); }
  virtual Ceilings ceilings() = 0;
  // The ceilings measured again, where a kernel was measured beating them: a probe that ran beside other load
  // reads low (and a low ceiling makes honest kernels look implausibly fast). Each ceiling keeps the larger of
  // the two measurements, in the cache too. At most once per backend object; by default the cached ceilings
  // stand (a backend whose probe nothing else disturbs).
  virtual Ceilings remeasure_ceilings() { return ceilings(); }
  // Whether ksearch evicts the candidate's tensors from the host's caches before each timed repetition,
  // and where it cannot evict lines directly (not x86-64), how many bytes it writes in its own process to
  // push them out (at least twice the last-level cache); 0 where the candidate's data lives in a device's
  // memory, whose runner flushes the device's caches itself. Flushing outside the candidate's process means
  // no candidate can see or shorten the flush.
  virtual size_t host_flush_bytes() const { return 0; }
  // Whether the runner's reported time is the host's clock around the whole call, so that no thread of the
  // runner can work on a call beyond it (the cpu runner; a GPU runner's host threads spin and launch outside
  // the device's timer).
  virtual bool reports_host_clock() const { return false; }
  // Whether the runner makes each timed repetition's inputs in its device's memory (keep_mix_sources
  // and mixing prepares, runner/child.hpp) rather than ksearch writing them for an upload: for large
  // tensors the upload would cost more than the call.
  virtual bool mixes_inputs_on_device() const { return false; }
  // Extra fields for the runner's load command besides the build artifact (e.g. the workload's
  // launch geometry); most backends need none.
  virtual nlohmann::json load_options(const tasks::Task&) const { return nlohmann::json::object(); }
  // The devices a search can spread its evaluations over (`ksearch run --devices all`), by id; one
  // unnamed device ("") where the backend has no notion of several (cpu: evaluations then share the
  // machine, and explicit ids only name slots).
  virtual std::vector<std::string> devices() const { return {""}; }
  // Environment entries (NAME=VALUE) that place a runner on `device` (e.g. CUDA_VISIBLE_DEVICES).
  virtual std::vector<std::string> device_environment(const std::string& /*device*/) const { return {}; }
  // The core/timing_lock key of `device`: timings under the same key are serialized. "" (the
  // default) is the whole machine, right where devices share what a timing measures.
  virtual std::string timing_lock_key(const std::string& /*device*/) const { return ""; }
  // A memory checker the runner can be started under (argv prefix) to catch out-of-bounds accesses
  // that land in mapped memory and so pass the output checks; empty where none is available. It
  // must print "ERROR SUMMARY: 0 errors" at exit when it found nothing.
  virtual std::vector<std::string> memcheck_launcher() const { return {}; }
  // The files `ksearch export --format FORMAT` writes for `source`, the kernel first ("source": the
  // kernel itself; a backend may offer more, e.g. metal's "mlx"). `verification` (what ksearch
  // checked, plain text) gets how to build and call the kernel appended and goes on top of the
  // kernel file as a comment (comment_block). Throws Error for a format the backend does not offer.
  virtual ExportBundle export_bundle(const tasks::Task& task, const std::string& source, std::string verification,
                                     const std::string& format) const = 0;
};

// Throws the Error for an export format other than "source" (or empty) that `backend` does not offer.
void require_source_format(const std::string& backend, const std::string& format);

// Every line prefixed with "// ", so a text is a comment in C++, CUDA and Metal files alike (and
// only prose to the Metal directive parser, whose keys are lowercase words followed by ':').
std::string comment_block(const std::string& text, const std::string& marker = "//");

// Helpers shared by backends whose candidates compile to one shared object.
BuildResult shared_library_result(const BuildOutcome& outcome);  // artifact {library, readable}
uint64_t half_of_memory(uint64_t cap_bytes);                      // a runner's address-space limit

using BackendFactory = std::function<std::unique_ptr<Backend>()>;
bool register_backend(const std::string& name, BackendFactory factory);
std::unique_ptr<Backend> make_backend(const std::string& name);  // throws Error listing known backends

#define KSEARCH_REGISTER_BACKEND(NAME, CLASS) \
  static const bool ksearch_backend_registered_##CLASS = ::ksearch::backends::register_backend(NAME, [] { return std::make_unique<CLASS>(); })

}  // namespace ksearch::backends
