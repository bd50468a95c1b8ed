#pragma once
// executors/executor: where a search's evaluations run. The loop (search/) hands each candidate to
// an Executor, which evaluates it with the evaluator's full policy somewhere (this process's runners
// on this host's devices: local/; Slurm jobs on a cluster's nodes: slurm/) and gives back its
// EvalReport; the loop commits each to the run store as it arrives. An executor that outlives the
// driving process (a batch system) returns a handle per submission, stored with the candidate, so
// that `ksearch resume` re-attaches to queued and running work instead of submitting it again.
// Executors register a factory by name (KSEARCH_REGISTER_EXECUTOR); `ksearch run --executor NAME`.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/task.hpp"

namespace ksearch::executors {

// One evaluation to run: a candidate's source, on the run's task and backend.
struct Submission {
  int64_t candidate = 0;
  std::string source;
};

// One finished evaluation. Failures of the infrastructure (a job lost on its node) come back as a
// report with status runtime_error whose message says what happened.
struct Completion {
  int64_t candidate = 0;
  evaluator::EvalReport report;
  double build_seconds = 0, eval_seconds = 0;
  std::string placement;  // where it ran, e.g. "device 1" or "slurm job 42 on node7"
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  // Evaluations that may be outstanding at once; the loop keeps this many in flight, no more.
  virtual int capacity() const = 0;
  virtual int outstanding() const = 0;
  // Starts one evaluation. Returns the handle to store for re-attaching from a later session, or ""
  // where the work cannot outlive this process (it is then simply submitted again).
  virtual std::string submit(const Submission& submission) = 0;
  // Takes over an evaluation a previous session submitted under `handle`; false when it is gone
  // without a trace (never started, or purged), so that the loop submits it again.
  virtual bool attach(const Submission& submission, const std::string& handle) = 0;
  // Waits up to `timeout` for evaluations to finish and returns those that did (none on timeout).
  virtual std::vector<Completion> collect(std::chrono::milliseconds timeout) = 0;
  // Stops every outstanding evaluation. Those that cannot be interrupted (a local measurement already on
  // its device) still finish and `collect` returns them while `finishing` counts them; the others'
  // results are never collected.
  virtual void cancel_all() = 0;
  virtual int finishing() const { return 0; }
};

// What a factory gets: the run an executor evaluates for.
struct ExecutorEnv {
  const tasks::Task* task = nullptr;
  backends::Backend* backend = nullptr;
  evaluator::EvalOptions options;  // the loop's evaluation options (visible workloads, seed timings)
  std::filesystem::path run_dir;   // the run's folder (a batch executor keeps its job files there)
  int parallel = 1;                // --parallel: evaluations per device a local executor holds (built ahead of its timing)
};

// The executor of a run, by name plus its configuration (stored in the run's config, so that
// `ksearch resume` uses the same one).
struct ExecutorSpec {
  std::string name = "local";
  nlohmann::json config = nlohmann::json::object();
  nlohmann::json to_json() const { return {{"name", name}, {"config", config}}; }
  static ExecutorSpec from_json(const nlohmann::json& j);  // a missing entry: local
};

// A factory throws Error (clear message) on a bad configuration or an executor that cannot work here.
using ExecutorFactory = std::function<std::unique_ptr<Executor>(const ExecutorEnv&, const nlohmann::json& config)>;
bool register_executor(const std::string& name, ExecutorFactory factory);
std::unique_ptr<Executor> make_executor(const ExecutorSpec& spec, const ExecutorEnv& env);  // throws Error
std::vector<std::string> executor_names();

}  // namespace ksearch::executors

#define KSEARCH_REGISTER_EXECUTOR(NAME, ID, FACTORY) \
  static const bool ksearch_executor_registered_##ID = ::ksearch::executors::register_executor(NAME, FACTORY)
