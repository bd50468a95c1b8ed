#pragma once
// evaluator/evaluator: the policy shared by every backend that turns a candidate's source into an
// EvalReport: rules, build, trials on fresh inputs, comparison, timing, re-check (docs/EVALUATION.md).
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "core/stats.hpp"
#include "core/status.hpp"
#include "tasks/task.hpp"

namespace ksearch::evaluator {

enum class WorkloadSet { visible, held_out, all };

struct EvalOptions {
  WorkloadSet workloads = WorkloadSet::all;
  int trials = 3;                    // fresh random inputs checked before timing (at least 3)
  bool time = true;
  int rotating_sets = 3;             // input buffers rotated through during timing
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 40;
  double target_seconds = 0.3;       // timed work per workload
  std::chrono::milliseconds call_timeout{0};  // 0: the backend's call_timeout()
  bool compare_to_seed = true;       // time the task's seed too (cached) for speedup_vs_seed
  // Where the seed's timings are kept: empty = this machine's cache (timed once per machine); a
  // search gives its run folder, so its speedups compare timings of the same sitting.
  std::filesystem::path seed_timings_dir;
  double implausible_roofline_fraction = 1.5;  // faster than the roofline by this much: rejected
  // The profile's static rules. Turned off only by the adversarial tests, to show that the run-time
  // defenses (sandbox, nonces, checks) hold on their own.
  bool enforce_rules = true;
  // Run the runner under the backend's memory checker (Backend::memcheck_launcher): one untimed trial
  // on each visible workload that takes the CPU reference; any error the checker reports is a
  // runtime_error. Set by `Evaluator::memcheck`.
  bool memcheck = false;
  // The device the runners are placed on (one of Backend::devices()); "" = the backend's default.
  std::string device;
};

struct WorkloadResult {
  std::string name;
  bool held_out = false;
  Status status = Status::not_run;  // until the workload runs (a not-run workload's message says why)
  std::string message;
  double max_abs_err = 0, max_rel_err = 0;
  TimingSummary timing;          // milliseconds
  double roofline_ms = 0;
  double roofline_fraction = 0;  // roofline_ms / median
  std::string roofline_bound;    // which ceiling sets roofline_ms: "memory", "compute" or "transcendental"
  double seed_ms = 0;
  double speedup_vs_seed = 0;
  int host_bound_calls = 0;      // timed calls whose time the runner's CPU time set, not its clock (evaluator/timing)
  int off_clock_charged_calls = 0;  // timed calls charged a `prepare` or `collect` costlier than calibrated (evaluator/timing)
  bool ran = false;
  // What the outputs were checked against: "cpu" (the task's reference.cpp) or "device" (its
  // [reference.<backend>], for workloads at or above the threshold).
  std::string reference;
};

struct EvalReport {
  std::string task, backend;
  Status status = Status::passed;
  std::string message;  // one line: the first problem
  std::string log;      // compiler or runner output excerpt
  std::vector<backends::RuleViolation> violations;
  std::vector<WorkloadResult> workloads;
  double speedup_vs_seed = 0;    // geometric mean over timed workloads
  double roofline_fraction = 0;  // geometric mean over timed workloads
  double compile_seconds = 0;
  // Where the evaluation's time went, by phase ("checks", "build", "start", "inputs", "reference",
  // "staging", "calls", "compare"): what the integrity checks cost is measured, not guessed.
  std::map<std::string, double> phase_seconds;
  bool timed = false;
  std::string sandbox;

  nlohmann::json to_json() const;
  static EvalReport from_json(const nlohmann::json& j);
  double mean_median_ms() const;  // geometric mean of the workloads' medians (0 if untimed)
  double spread() const;          // mean relative spread of the timed workloads (0 if untimed): the noise of speedup_vs_seed
};

class Evaluator {
 public:
  Evaluator(const tasks::Task& task, backends::Backend& backend, EvalOptions options = {});

  // Rules, build, run; never throws for anything the candidate does.
  EvalReport evaluate(const std::string& source);
  // The same split in two, so that builds can run in parallel before evaluations.
  std::optional<EvalReport> check_and_build(const std::string& source, backends::BuildResult& build);
  EvalReport evaluate_built(const backends::BuildResult& build);

  // The candidate under the backend's memory checker (out-of-bounds accesses that land in mapped memory
  // pass every output check); nullopt where the backend has none.
  std::optional<EvalReport> memcheck(const std::string& source);

  // Median milliseconds of the task's seed per workload, cached per machine.
  const std::map<std::string, double>& seed_times();

  const tasks::Task& task() const { return task_; }
  backends::Backend& backend() { return backend_; }
  const EvalOptions& options() const { return options_; }

 private:
  std::vector<const tasks::Workload*> selected_workloads() const;
  const tasks::Task& task_;
  backends::Backend& backend_;
  EvalOptions options_;
  std::optional<std::map<std::string, double>> seed_times_;
};

// The secret seed pool: seeds a candidate cannot see, stable per machine so references cache.
uint64_t secret_seed(const tasks::Task& task, const tasks::Workload& workload, int index);
inline constexpr int kSecretSeedsPerWorkload = 12;
// Timed repetitions checked per workload, at most (at least 2 are): every secret seed the trials and the re-check leave.
inline constexpr int kMaxCheckedRepetitions = 8;

}  // namespace ksearch::evaluator
