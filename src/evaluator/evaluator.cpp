#include "evaluator/evaluator.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "core/timing_lock.hpp"
#include "evaluator/compare.hpp"
#include "evaluator/device_reference.hpp"
#include "evaluator/staging.hpp"
#include "evaluator/timing.hpp"
#include "tasks/inputs.hpp"
#include "tasks/reference.hpp"

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::backends::Ceilings;
using ksearch::backends::RuleSet;
using ksearch::backends::RuleViolation;
using ksearch::tasks::DeviceReferenceSpec;
using ksearch::tasks::HostTensor;
using ksearch::tasks::ReferenceOutputs;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::ensure_reference_built;
using ksearch::tasks::generate_inputs;
using ksearch::tasks::mix_inputs;
using ksearch::tasks::reference_outputs;

namespace fs = std::filesystem;

namespace ksearch::evaluator {

namespace {

std::string secret_key() {
  static const std::string key = [] {
    const fs::path file = cache_dir() / "secret";
    if (!fs::exists(file)) {
      std::random_device rd;
      std::string bytes;
      for (int i = 0; i < 32; ++i) bytes.push_back(char(rd() & 0xff));
      write_file_atomic(file, bytes);
      fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    }
    return read_file(file);
  }();
  return key;
}

struct TrialOutcome {
  Status status = Status::passed;
  std::string message;
  double max_abs = 0, max_rel = 0;
  double call_ms = 0;
};

// Adds the wall time of each piece of work to its phase (EvalReport::phase_seconds).
class PhaseClock {
 public:
  struct Scope {
    double& total;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Scope() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  };
  explicit PhaseClock(std::map<std::string, double>& seconds) : seconds_(seconds) {}
  Scope scope(const char* phase) { return Scope{seconds_[phase]}; }
  template <typename Work>
  decltype(auto) operator()(const char* phase, Work&& work) {
    const Scope timed = scope(phase);
    return work();
  }

 private:
  std::map<std::string, double>& seconds_;
};

// How long the runner's other threads may take to fall asleep after a call: libgomp's idle workers spin some 300,000
// iterations (a few milliseconds) first, longer when preempted on a loaded machine.
constexpr std::chrono::milliseconds kIdleBound{2000};
// Positions of each output read after a timed call's `prepare` for the poison it must still hold (spread at random:
// a candidate computing part of an output off the clock is found as surely as one computing all of it, for cheap).
constexpr size_t kPoisonSamples = 4096;

Status failure_status(const runner::RunnerFailure& f) {
  switch (f.kind) {
    case runner::RunnerFailure::Kind::timeout: return Status::timeout;
    case runner::RunnerFailure::Kind::forged: return Status::rejected;
    default: return Status::runtime_error;
  }
}

}  // namespace

uint64_t secret_seed(const Task& task, const Workload& workload, int index) {
  const std::string digest = sha256_hex(secret_key() + "|" + task.content_hash + "|" + workload.name + "|" + std::to_string(index));
  return std::stoull(digest.substr(0, 16), nullptr, 16);
}

nlohmann::json EvalReport::to_json() const {
  nlohmann::json j;
  j["task"] = task;
  j["backend"] = backend;
  j["status"] = status_name(status);
  j["message"] = message;
  j["log"] = log;
  j["timed"] = timed;
  j["speedup_vs_seed"] = speedup_vs_seed;
  j["roofline_fraction"] = roofline_fraction;
  j["compile_seconds"] = compile_seconds;
  j["phase_seconds"] = phase_seconds;
  j["sandbox"] = sandbox;
  j["violations"] = nlohmann::json::array();
  for (const auto& v : violations) j["violations"].push_back({{"rule", v.rule}, {"message", v.message}, {"line", v.line}});
  j["workloads"] = nlohmann::json::array();
  for (const auto& w : workloads) {
    j["workloads"].push_back({{"name", w.name},
                              {"held_out", w.held_out},
                              {"status", status_name(w.status)},
                              {"message", w.message},
                              {"ran", w.ran},
                              {"reference", w.reference},
                              {"max_abs_err", w.max_abs_err},
                              {"max_rel_err", w.max_rel_err},
                              {"median_ms", w.timing.median},
                              {"spread", w.timing.spread()},
                              {"p10_ms", w.timing.p10},
                              {"p90_ms", w.timing.p90},
                              {"min_ms", w.timing.min},
                              {"max_ms", w.timing.max},
                              {"samples", w.timing.samples},
                              {"host_bound_calls", w.host_bound_calls},
                              {"off_clock_charged_calls", w.off_clock_charged_calls},
                              {"roofline_ms", w.roofline_ms},
                              {"roofline_fraction", w.roofline_fraction},
                              {"roofline_bound", w.roofline_bound},
                              {"seed_ms", w.seed_ms},
                              {"speedup_vs_seed", w.speedup_vs_seed}});
  }
  return j;
}

EvalReport EvalReport::from_json(const nlohmann::json& j) {
  EvalReport r;
  r.task = j.value("task", "");
  r.backend = j.value("backend", "");
  r.status = parse_status(j.value("status", "runtime_error"));
  r.message = j.value("message", "");
  r.log = j.value("log", "");
  r.timed = j.value("timed", false);
  r.speedup_vs_seed = j.value("speedup_vs_seed", 0.0);
  r.roofline_fraction = j.value("roofline_fraction", 0.0);
  r.compile_seconds = j.value("compile_seconds", 0.0);
  r.phase_seconds = j.value("phase_seconds", std::map<std::string, double>{});
  r.sandbox = j.value("sandbox", "");
  for (const auto& v : j.value("violations", nlohmann::json::array()))
    r.violations.push_back({v.value("rule", ""), v.value("message", ""), v.value("line", 0)});
  for (const auto& w : j.value("workloads", nlohmann::json::array())) {
    WorkloadResult wr;
    wr.name = w.value("name", "");
    wr.held_out = w.value("held_out", false);
    wr.status = parse_status(w.value("status", "runtime_error"));
    wr.message = w.value("message", "");
    wr.ran = w.value("ran", false);
    wr.reference = w.value("reference", "");
    wr.max_abs_err = w.value("max_abs_err", 0.0);
    wr.max_rel_err = w.value("max_rel_err", 0.0);
    wr.timing.median = w.value("median_ms", 0.0);
    wr.timing.p10 = w.value("p10_ms", 0.0);
    wr.timing.p90 = w.value("p90_ms", 0.0);
    wr.timing.min = w.value("min_ms", 0.0);
    wr.timing.max = w.value("max_ms", 0.0);
    wr.timing.samples = w.value("samples", 0);
    wr.host_bound_calls = w.value("host_bound_calls", 0);
    wr.off_clock_charged_calls = w.value("off_clock_charged_calls", 0);
    wr.roofline_ms = w.value("roofline_ms", 0.0);
    wr.roofline_fraction = w.value("roofline_fraction", 0.0);
    wr.roofline_bound = w.value("roofline_bound", "");
    wr.seed_ms = w.value("seed_ms", 0.0);
    wr.speedup_vs_seed = w.value("speedup_vs_seed", 0.0);
    r.workloads.push_back(wr);
  }
  return r;
}

double EvalReport::mean_median_ms() const {
  std::vector<double> medians;
  for (const auto& w : workloads)
    if (w.timing.samples > 0) medians.push_back(w.timing.median);
  return medians.empty() ? 0 : geometric_mean(medians);
}

double EvalReport::spread() const {
  double sum = 0;
  int timed_workloads = 0;
  for (const auto& w : workloads)
    if (w.timing.samples > 0) sum += w.timing.spread(), ++timed_workloads;
  return timed_workloads ? sum / timed_workloads : 0;
}

Evaluator::Evaluator(const Task& task, Backend& backend, EvalOptions options)
    : task_(task), backend_(backend), options_(options) {
  if (options_.memcheck) {  // a checker slows kernels down by orders of magnitude: one call each
    options_.trials = 1;
    options_.time = false;
    options_.workloads = WorkloadSet::visible;
  }
  options_.trials = std::max(options_.trials, options_.memcheck ? 1 : 3);
  options_.rotating_sets = std::max(options_.rotating_sets, 2);  // two hold the mix sources on their way to a device
  if (options_.call_timeout.count() <= 0) options_.call_timeout = backend_.call_timeout() * (options_.memcheck ? 30 : 1);
  // A task the backend cannot run and a reference that does not build are the task's errors, not a
  // candidate's: say so before any is run.
  if (const auto why = backend_.task_unsupported(task_))
    throw Error(fmt::format("task '{}' cannot run on the {} backend: {}", task_.name, backend_.name(), *why));
  ensure_reference_built(task_);
}

std::vector<const Workload*> Evaluator::selected_workloads() const {
  std::vector<const Workload*> out;
  for (const auto& w : task_.workloads) {
    if (!w.runs_on(backend_.name())) continue;
    if (options_.workloads == WorkloadSet::visible && w.held_out) continue;
    if (options_.workloads == WorkloadSet::held_out && !w.held_out) continue;
    out.push_back(&w);
  }
  if (options_.memcheck) {  // the workloads small enough for the CPU reference, at least the cheapest
    std::vector<const Workload*> small;
    for (const Workload* w : out)
      if (!task_.device_reference_for(backend_.name(), *w)) small.push_back(w);
    if (small.empty() && !out.empty())
      small.push_back(*std::min_element(out.begin(), out.end(), [&](const Workload* a, const Workload* b) {
        return task_.flops(*a) + task_.bytes(*a) < task_.flops(*b) + task_.bytes(*b);
      }));
    return small;
  }
  return out;
}

namespace {

EvalReport rejected(EvalReport report, std::vector<RuleViolation> violations) {
  report.status = Status::rejected;
  report.violations = std::move(violations);
  const auto& v = report.violations.front();
  report.message = v.line ? fmt::format("line {}: {}", v.line, v.message) : v.message;
  for (const auto& violation : report.violations)
    report.log += fmt::format("line {}: [{}] {}\n", violation.line, violation.rule, violation.message);
  return report;
}

EvalReport compile_error(EvalReport report, const std::string& log) {
  report.status = Status::compile_error;
  report.log = tail_lines(log, 40);
  std::string first_error;
  for (size_t pos = 0; pos < log.size();) {
    size_t nl = log.find('\n', pos);
    std::string line = log.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (line.find("error") != std::string::npos) { first_error = line; break; }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  report.message = first_error.empty() ? "compilation failed" : first_error;
  return report;
}

// The preprocessor's diagnostics located in the candidate's own file, with their context lines, and the tool's own
// lines (`cc1plus: out of memory ...` for macros that expand to gigabytes, ksearch's timeout): those in other files
// would quote files the candidate may have included only to read them.
std::string candidate_diagnostics(const std::string& log, const std::string& file) {
  std::string out;
  bool keep = false;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != ' ')  // "candidate.cpp:3:10: error: ...", "cc1plus: ...", "[ksearch] ..."
      keep = line.starts_with(file + ":") || line.starts_with("[ksearch]") ||
             (line.find(": ") != std::string::npos && line.find_first_of("/.") > line.find(": "));
    if (keep) out += line + "\n";
  }
  return out.empty() ? "the preprocessor failed in a file the candidate included\n" : out;
}

}  // namespace

std::optional<EvalReport> Evaluator::check_and_build(const std::string& source, BuildResult& build) {
  EvalReport report;
  report.task = task_.name;
  report.backend = backend_.name();
  const RuleSet& rules = backend_.profile().rules;
  // The rules, cheapest first: on the text, on what the preprocessor makes of it (no compile is
  // spent on a violation), then on the built library before anything loads it.
  // What the preprocessor made of the candidate's lines, read once: the object rules look at it again.
  std::optional<backends::SourceScan> candidate_code;
  if (options_.enforce_rules) {
    if (auto violations = rules.check(source); !violations.empty()) return rejected(report, violations);
    if (const auto preprocessed = backend_.preprocess(task_, source)) {
      if (!preprocessed->output.ok)
        return compile_error(report, candidate_diagnostics(preprocessed->output.log, preprocessed->candidate_file));
      candidate_code = backends::scan_preprocessed(preprocessed->output.text, preprocessed->candidate_file);
      if (auto violations = rules.check_preprocessed(*candidate_code); !violations.empty()) return rejected(report, violations);
    }
  }
  build = backend_.build(task_, source);
  report.compile_seconds = build.seconds;
  if (!build.ok) return compile_error(report, build.log);
  if (options_.enforce_rules && build.artifact.contains("library"))
    if (auto violations = rules.object.check(build.artifact["library"].get<std::string>(),
                                             candidate_code ? &*candidate_code : nullptr);
        !violations.empty())
      return rejected(report, violations);
  return std::nullopt;
}

EvalReport Evaluator::evaluate(const std::string& source) {
  BuildResult build;
  const auto start = std::chrono::steady_clock::now();
  if (auto early = check_and_build(source, build)) return *early;
  const double checks_and_build = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EvalReport report = evaluate_built(build);
  report.phase_seconds["checks"] = std::max(0.0, checks_and_build - build.seconds);  // rules, preprocessing, object checks
  return report;
}

EvalReport Evaluator::evaluate_built(const BuildResult& build) {
  EvalReport report;
  report.task = task_.name;
  report.backend = backend_.name();
  report.compile_seconds = build.seconds;
  report.phase_seconds["build"] = build.seconds;
  PhaseClock phase(report.phase_seconds);
  const bool timing = options_.time && backend_.timing_available();
  report.timed = timing;
  Ceilings ceilings = timing ? backend_.ceilings() : Ceilings{};
  // The roofline of a timed workload from the ceilings (the slowest of its memory, FLOP and transcendental
  // times), and the time below which its result is implausible: the slower of the memory and FLOP times, or
  // the FLOP time alone where the data fits in the caches (it can beat the memory roofline despite the flush).
  // The transcendental time never bounds plausibility: a kernel may compute exp with FMA polynomials faster
  // than the units the ceiling measures.
  const auto apply_roofline = [&](const Workload& w, WorkloadResult& wr) {
    const auto seconds = [](double amount, double per_s) { return per_s > 0 ? amount / per_s : 0.0; };
    const double memory_s = seconds(task_.bytes(w), ceilings.bandwidth_bytes_per_s);
    const double compute_s = seconds(task_.flops(w), ceilings.flops_per_s);
    const double transcendental_s = seconds(task_.transcendentals(w), ceilings.transcendentals_per_s);
    const double roofline_s = std::max({memory_s, compute_s, transcendental_s});
    if (roofline_s > 0)
      wr.roofline_bound = roofline_s == memory_s ? "memory" : roofline_s == compute_s ? "compute" : "transcendental";
    wr.roofline_ms = roofline_s * 1000;
    if (wr.timing.median > 0) wr.roofline_fraction = wr.roofline_ms / wr.timing.median;
    const bool in_cache = task_.bytes(w) <= 2.0 * double(ceilings.cache_bytes);
    struct {
      double plausible_ms, memory_or_flops_ms;
    } bounds{1000 * (in_cache ? compute_s : std::max(memory_s, compute_s)), 1000 * std::max(memory_s, compute_s)};
    return bounds;
  };

  std::unique_ptr<runner::RunnerProcess> process;
  auto fail_all_remaining = [&](size_t from, const std::string& why) {
    for (size_t i = from; i < report.workloads.size(); ++i)
      if (!report.workloads[i].ran) report.workloads[i].message = why;
  };
  const auto workloads = selected_workloads();
  if (workloads.empty()) {
    report.status = Status::rejected;
    report.message = "the task has no workloads for backend " + backend_.name();
    return report;
  }
  for (const Workload* w : workloads) {
    WorkloadResult wr;
    wr.name = w->name;
    wr.held_out = w->held_out;
    report.workloads.push_back(wr);
  }

  // Calibrated before the candidate is loaded and again after (see evaluator/timing). A null call does the
  // same work for every workload (it parses the command and returns), so one calibration serves them all.
  NullCallCost null_call;
  nlohmann::json null_command;  // a timed call's command, as a workload's calls will send it
  nlohmann::json wake_command;     // a `prepare` that wakes OpenMP's team, to measure its idle spinning and cost
  nlohmann::json collect_command;  // a `collect`, to measure its cost
  const auto calibrate = [&] {
    // Its flushes would disturb other processes' timing, and theirs its own.
    const TimingLock lock = phase("lock_wait", [&] { return TimingLock(backend_.timing_lock_key(options_.device)); });
    const PhaseClock::Scope starting = phase.scope("start");
    return calibrate_null_call(*process, null_command, backend_.host_flush_bytes(), options_.call_timeout);
  };
  try {
    phase("start", [&] {
      process = std::make_unique<runner::RunnerProcess>(
          backend_.runner_executable(), backend_.runner_limits(), backend_.device_environment(options_.device),
          options_.memcheck ? backend_.memcheck_launcher() : std::vector<std::string>{});
    });
    if (timing) {
      const StagingLayout layout = make_staging_layout(task_, backend_.name(), *workloads.front(), options_.rotating_sets);
      phase("start", [&] { process->shared_memory(layout.total, options_.call_timeout); });
      null_command = staged_command(layout, 0, "timed_call");
      wake_command = staged_command(layout, 0, "prepare");
      wake_command["wake_threads"] = true;
      collect_command = staged_command(layout, 0, "collect");
      null_call = calibrate();
    }
    report.sandbox =
        phase("start", [&] { return load_build(*process, backend_, task_, build, options_.call_timeout).value("sandbox", ""); });
    if (timing) null_call = settled_null_call(null_call, calibrate());
    // Before any call: only the runner's code runs in `prepare` and `collect`, so what they cost (and what the workers
    // spend) is the runner's and OpenMP's own.
    if (timing && backend_.reports_host_clock()) {
      const RunnerWorkCost work = phase("start", [&] {
        return measure_runner_work(*process, wake_command, collect_command, kIdleBound, options_.call_timeout);
      });
      null_call.idle_spin_ms = work.idle_spin_ms;
      null_call.prepare = work.prepare;
      null_call.collect = work.collect;
    }
    spdlog::debug("runner started, null call calibrated, candidate loaded; idle workers spin {} ms after a wake-up",
                  null_call.idle_spin_ms ? fmt::format("{:.4f}", *null_call.idle_spin_ms) : "unmeasured");
  } catch (const runner::RunnerFailure& f) {
    report.status = failure_status(f);
    report.message = std::string("loading the candidate failed: ") + f.what();
    report.log = process ? tail_lines(process->output_tail(), 30) : "";
    fail_all_remaining(0, "not run: the candidate could not be loaded");
    return report;
  }

  bool ceilings_changed = false;  // measured again during this evaluation: the earlier workloads' rooflines follow
  // Started on the first workload that needs it, in a runner of its own.
  std::unique_ptr<DeviceReference> device_reference;
  std::random_device rd;
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const Workload& w = *workloads[wi];
    WorkloadResult& wr = report.workloads[wi];
    wr.ran = true;
    wr.status = Status::passed;
    const DeviceReferenceSpec* device_spec = task_.device_reference_for(backend_.name(), w);
    wr.reference = device_spec ? "device" : "cpu";
    // `pool_seed`: the secret seed the inputs were drawn from, whose reference the cache may keep (none for a mix drawn
    // for this evaluation alone).
    auto reference_for = [&](std::optional<uint64_t> pool_seed, const std::vector<HostTensor>& inputs) {
      const PhaseClock::Scope timed = phase.scope("reference");
      if (!device_spec)
        return pool_seed ? reference_outputs(task_, w, *pool_seed, inputs) : fresh_reference_outputs(task_, w, inputs);
      if (!device_reference) device_reference = std::make_unique<DeviceReference>(task_, backend_, *device_spec, options_.device);
      return device_reference->outputs(w, inputs);
    };
    const StagingLayout layout = make_staging_layout(task_, backend_.name(), w, timing ? options_.rotating_sets : 1);
    std::vector<int> seed_indices(kSecretSeedsPerWorkload);
    std::iota(seed_indices.begin(), seed_indices.end(), 0);
    std::shuffle(seed_indices.begin(), seed_indices.end(), std::mt19937(rd()));

    // Compares what a call left in a staged set with the reference: outputs within tolerance, inputs unchanged.
    // `staged` holds the shared memory from its offset `from` on (a copy of one set's bytes, or the memory itself).
    auto check_staged = [&](const char* staged, int64_t from, int set, const std::vector<HostTensor>& inputs,
                            const ReferenceOutputs& reference) {
      const PhaseClock::Scope timed = phase.scope("compare");
      TrialOutcome out;
      for (size_t slot = 0; slot < layout.names.size(); ++slot) {
        if (layout.offsets[size_t(set)][slot] < 0) continue;
        const int64_t offset = layout.offsets[size_t(set)][slot] - from;
        if (!layout.is_output[slot]) {
          const HostTensor& t = input_named(inputs, layout.names[slot]);
          if (std::memcmp(staged + offset, t.bytes.data(), t.bytes.size()) != 0) {
            out.status = Status::wrong_answer;
            out.message = "the candidate modified its input '" + layout.names[slot] + "'";
            return out;
          }
          continue;
        }
        // Compared from a copy: the shared memory stays writable by the runner, whose threads could otherwise
        // change it between the check and the message (or the check's parts).
        const std::vector<double>& expected = reference[size_t(layout.output_index[slot])];
        const std::vector<char> produced(staged + offset, staged + offset + expected.size() * dtype_size(layout.dtypes[slot]));
        const Comparison c = compare_output(layout.names[slot], produced.data(), layout.dtypes[slot], expected,
                                            task_.tolerance(layout.dtypes[slot]), layout.row_lengths[slot]);
        out.max_abs = std::max(out.max_abs, c.max_abs_err);
        out.max_rel = std::max(out.max_rel, c.max_rel_err);
        if (!c.ok && out.status == Status::passed) {
          out.status = Status::wrong_answer;
          out.message = c.message;
        }
      }
      return out;
    };
    auto trial = [&](int set, uint64_t seed, const std::vector<HostTensor>& inputs) {
      const ReferenceOutputs reference = reference_for(seed, inputs);
      char* shm = process->shared_memory(layout.total, options_.call_timeout);
      phase("staging", [&] { stage(shm, layout, set, inputs); });
      const double call_ms = phase("calls", [&] { return call_staged(*process, layout, set, options_.call_timeout).value("ms", 0.0); });
      TrialOutcome out = check_staged(shm, 0, set, inputs, reference);
      out.call_ms = call_ms;
      return out;
    };

    // On the host, the runner's other threads (OpenMP's workers) asleep, and their CPU time then: whatever they run from
    // then until ksearch has staged a timed call's inputs is the candidate's code working off the clock (trusted_times).
    // nullopt where it is not read, or where a thread kept running (`ran_between_calls` says so).
    std::string ran_between_calls;
    auto other_threads_asleep = [&]() -> std::optional<double> {
      if (!timing || !backend_.reports_host_clock()) return std::nullopt;
      bool still_running = false;
      const auto ms = phase("idle_wait", [&] { return process->idle_other_threads_cpu_ms(kIdleBound, &still_running); });
      if (still_running)
        ran_between_calls = fmt::format(
            "a thread of the runner besides its main one kept running for {} ms after the candidate's call returned "
            "(an idle OpenMP worker sleeps once its spinning ends): the candidate's code ran outside its calls",
            kIdleBound.count());
      return ms;
    };
    const std::optional<double> asleep_before_trials = other_threads_asleep();
    if (!ran_between_calls.empty()) {
      wr.status = Status::rejected;
      wr.message = ran_between_calls;
    }

    try {
      // Every timed repetition runs on a fresh mix of two secret input sets (tasks/inputs: mix_tensor),
      // checked ones included, so that no repetition can tell whether it will be checked. The first two
      // trials run on the two sets as drawn. Secret indices: 0-11 the pool, 12-13 the sources.
      std::array<std::vector<HostTensor>, 2> mix_sources;
      auto mix_source_seed = [&](int i) { return secret_seed(task_, w, kSecretSeedsPerWorkload + i); };
      auto trial_seed = [&](int t) {
        return t < 2 ? mix_source_seed(t) : secret_seed(task_, w, seed_indices[size_t(t) % seed_indices.size()]);
      };
      double call_ms = 0;
      for (int t = 0; t < options_.trials && wr.status == Status::passed; ++t) {
        std::vector<HostTensor> inputs = phase("inputs", [&] { return generate_inputs(task_, w, trial_seed(t)); });
        TrialOutcome o = trial(0, trial_seed(t), inputs);
        if (t < 2) mix_sources[size_t(t)] = std::move(inputs);
        wr.max_abs_err = std::max(wr.max_abs_err, o.max_abs);
        wr.max_rel_err = std::max(wr.max_rel_err, o.max_rel);
        call_ms = std::max(call_ms, o.call_ms);
        if (o.status != Status::passed) {
          wr.status = o.status;
          wr.message = fmt::format("trial {}: {}", t + 1, o.message);
        }
      }
      spdlog::debug("{}: trials done ({})", w.name, status_name(wr.status));
      if (wr.status == Status::passed && timing) {
        // One repetition at a time, each on a fresh mix of the sources made just before it (no call has
        // seen it, so nothing cached can answer it) with freshly poisoned outputs. Secretly chosen
        // repetitions are checked against the reference; the others need no reference.
        std::mt19937_64 rng((uint64_t(rd()) << 32) | rd());
        // Two among the first repetitions, then a few more (a check costs a reference and a comparison).
        const std::set<int> checked =
            choose_checked_repetitions(options_.min_reps, options_.max_reps, 2, kMaxCheckedRepetitions, rng);
        struct CheckedCase {
          std::vector<HostTensor> inputs;  // mix_inputs of the sources with the repetition's seed
          ReferenceOutputs reference;
        };
        // Its seed is drawn when its repetition comes (later ones may never run: enough timed work before them);
        // its inputs and reference are made after the last repetition, so that nothing between calls takes longer
        // for a checked repetition (a candidate timing the gaps between its calls would tell them apart). Drawn
        // from the kernel's random source for this evaluation, not from the secret pool: the pool's mixes are the same
        // in every evaluation on this machine, so a candidate that printed fingerprints of its inputs in earlier ones
        // (its log reaches the proposer) knew which repetitions could be checked and skipped the others' work (a
        // red-team probe). Their references are computed for each evaluation, never cached.
        int checked_count = 0;
        auto checked_seed = [&]() {
          ++checked_count;
          return (uint64_t(rd()) << 32) | rd();
        };
        auto checked_case = [&](uint64_t seed) {
          auto inputs = phase("inputs", [&] { return mix_inputs(mix_sources[0], mix_sources[1], seed); });
          ReferenceOutputs reference = reference_for(std::nullopt, inputs);
          return CheckedCase{std::move(inputs), std::move(reference)};
        };
        for (int i = 0; i < 2; ++i)
          if (mix_sources[size_t(i)].empty())
            mix_sources[size_t(i)] = phase("inputs", [&] { return generate_inputs(task_, w, mix_source_seed(i)); });
        char* shm = process->shared_memory(layout.total, options_.call_timeout);
        const bool mix_on_device = backend_.mixes_inputs_on_device();
        if (mix_on_device) {  // the sources go to the device once, through two sets' host buffers
          const PhaseClock::Scope timed = phase.scope("staging");
          stage(shm, layout, 0, mix_sources[0]);
          stage(shm, layout, 1, mix_sources[1]);
          process->request(keep_mix_sources_command(layout, 0, 1), options_.call_timeout);
          spdlog::debug("{}: mix sources on the device", w.name);
        }
        const auto budget = std::max(options_.call_timeout, std::chrono::milliseconds(int64_t(10000 + 3 * call_ms)));
        // Every repetition's set is collected and copied out of the shared memory after its call in the same way (a
        // checked one's into a buffer kept for its check, the others' into one scratch buffer, each buffer out of the
        // cache when written: copy_out_evenly), and the checks run
        // after the last repetition: a candidate that could tell checked repetitions apart (by the commands it gets,
        // or by the time the evaluator takes between its calls) would know when the checks are spent and skip its
        // work after them.
        std::vector<SetSpan> spans;
        size_t largest_set = 0;
        for (int set = 0; set < options_.rotating_sets; ++set) {
          spans.push_back(set_span(layout, set));
          largest_set = std::max(largest_set, spans.back().bytes);
        }
        struct HeldRepetition {
          int rep = 0, set = 0;
          uint64_t seed = 0;
        };
        std::vector<HeldRepetition> held;
        std::vector<std::vector<char>> held_sets(checked.size(), std::vector<char>(largest_set));
        std::vector<char> scratch_set(largest_set);
        // Out of the cache from the start (their zeros copied over), as every buffer a copy goes to is after its first.
        for (auto& held_set : held_sets) copy_out_evenly(held_set.data(), scratch_set.data(), largest_set);
        std::vector<TimedCall> calls;
        // The repetitions run until their median time their count reaches the target: with their sum, one slow call
        // ended the timing where the candidate chose (honest on the first repetitions, where two checks always fall,
        // then skipping work until one long call stopped it at 13 repetitions, past the few later checks).
        auto timed_enough = [&] {
          std::vector<double> reported;
          for (const TimedCall& c : calls) reported.push_back(c.reported_ms);
          return !reported.empty() && summarize(reported).median * double(reported.size()) / 1000.0 >= options_.target_seconds;
        };
        std::optional<TimingLock> lock;
        phase("lock_wait", [&] { lock.emplace(backend_.timing_lock_key(options_.device)); });
        bool wake_threads = false;  // whether `prepare` wakes OpenMP's team: the trials used it
        // The other threads' CPU time found asleep before the last timed call's repetition (TimedCall::
        // other_threads_repetition_cpu_ms is its difference to the next such reading).
        std::optional<double> asleep_before_last_call;
        // The runner's threads at the first repetition: one that ends later takes its CPU time out of the sums the
        // checks above read (a worker that computed the next repetition's outputs off the clock, then exited). An
        // OpenMP team settles in the trials before the timing; it cannot grow again (the sandbox starts no thread).
        std::optional<int> threads_at_first_repetition;
        auto thread_ended = [&](int threads_now) -> std::string {
          if (!threads_at_first_repetition) threads_at_first_repetition = threads_now;
          if (threads_now >= *threads_at_first_repetition) return "";
          return fmt::format(
              "a thread of the runner ended during the timed repetitions ({} threads, then {}): the CPU time of a thread "
              "that ends leaves ksearch's accounts, so the candidate's code may have run on it off the clock (an OpenMP "
              "team that shrinks between calls is refused too: use one team size)",
              *threads_at_first_repetition, threads_now);
        };
        auto close_last_repetition = [&](const std::optional<double>& asleep_now) {
          if (!calls.empty() && asleep_before_last_call && asleep_now)
            calls.back().other_threads_repetition_cpu_ms = *asleep_now - *asleep_before_last_call;
          asleep_before_last_call.reset();
        };
        for (int rep = -options_.warmup; rep < options_.max_reps; ++rep) {
          if (rep >= options_.min_reps && timed_enough()) break;
          const std::optional<double> idle_other_threads_ms = other_threads_asleep();
          close_last_repetition(idle_other_threads_ms);
          if (!ran_between_calls.empty()) break;
          if (rep == -options_.warmup)
            wake_threads = idle_other_threads_ms && asleep_before_trials && *idle_other_threads_ms > *asleep_before_trials;
          const int set = (rep + options_.warmup) % options_.rotating_sets;
          // The host path's cost now, for this call's CPU time to be held against (trusted_times).
          const nlohmann::json timed_command = staged_command(layout, set, "timed_call");
          const std::optional<double> null_cpu_ms =
              phase("null_calls", [&] { return measure_null_beside(*process, timed_command, options_.call_timeout); });
          const std::optional<uint64_t> check_seed = checked.count(rep) ? std::optional<uint64_t>(checked_seed()) : std::nullopt;
          const uint64_t mix_seed = check_seed ? *check_seed : rng();
          phase("staging", [&] {
            if (mix_on_device) process->request(mixing_prepare_command(layout, set, mix_sources[0], mix_seed), options_.call_timeout);
            else stage_mix(shm, layout, set, mix_sources[0], mix_sources[1], mix_seed);
          });
          phase("flush", [&] { flush_host_caches(set_tensors(shm, layout, set), backend_.host_flush_bytes()); });
          std::optional<double> between_calls_cpu_ms;
          if (const auto cpu = idle_other_threads_ms ? process->process_cpu() : std::nullopt) {
            between_calls_cpu_ms = cpu->other_threads_ms - *idle_other_threads_ms;
            if (const std::string ended = thread_ended(cpu->threads); !ended.empty()) {
              ran_between_calls = ended;
              break;
            }
          }
          // Last before the call: the cpu runner's `prepare` wakes OpenMP's team, asleep since the check above, where
          // the candidate uses it, as in the calibration (measure_runner_work), whose cost it is held against, as the
          // `collect` after the call. The workers wait passively (runner/parent.cpp): they sleep again at once, and the
          // call pays their wake-up as an application's call after a pause does.
          std::optional<RequestCost> prepare_cost;
          if (!mix_on_device) {
            nlohmann::json prepare = staged_command(layout, set, "prepare");
            prepare["wake_threads"] = wake_threads;
            phase("staging", [&] {
              if (null_call.prepare) prepare_cost = measure_request(*process, prepare, options_.call_timeout);
              else process->request(prepare, options_.call_timeout);
            });
            // Nothing of the runner's writes the outputs there: a candidate whose code ran in the wake-up (a hijacked
            // OpenMP worker) computed them off the clock.
            if (const std::string early = output_written_early(shm, layout, set, kPoisonSamples, rng); !early.empty()) {
              ran_between_calls = fmt::format(
                  "output '{}' was written before the timed call, while the runner prepared it (staged inputs, woke its "
                  "threads): the candidate's code ran outside its calls, off the clock",
                  early);
              break;
            }
          }
          TimedCall call = phase("calls", [&] { return measure_timed_call(*process, timed_command, budget); });
          call.prepare = prepare_cost;
          call.between_calls_cpu_ms = between_calls_cpu_ms;
          call.null_cpu_ms = null_cpu_ms;
          phase("staging", [&] {
            const nlohmann::json collect = staged_command(layout, set, "collect");
            if (null_call.collect) call.collect = measure_request(*process, collect, options_.call_timeout);
            else process->request(collect, options_.call_timeout);
            copy_out_evenly((check_seed ? held_sets[held.size()] : scratch_set).data(), shm + spans[size_t(set)].from,
                            spans[size_t(set)].bytes);
          });
          if (check_seed) held.push_back({rep, set, *check_seed});
          if (rep < 0) continue;  // warm-up
          calls.push_back(call);
          asleep_before_last_call = idle_other_threads_ms;
        }
        if (asleep_before_last_call) {
          close_last_repetition(other_threads_asleep());
          if (const auto cpu = ran_between_calls.empty() ? process->process_cpu() : std::nullopt)
            ran_between_calls = thread_ended(cpu->threads);
        }
        if (!ran_between_calls.empty()) {
          wr.status = Status::rejected;
          wr.message = ran_between_calls;
        }
        for (size_t i = 0; i < held.size() && wr.status == Status::passed; ++i) {
          const CheckedCase check = checked_case(held[i].seed);
          const TrialOutcome o =
              check_staged(held_sets[i].data(), spans[size_t(held[i].set)].from, held[i].set, check.inputs, check.reference);
          wr.max_abs_err = std::max(wr.max_abs_err, o.max_abs);
          wr.max_rel_err = std::max(wr.max_rel_err, o.max_rel);
          if (o.status != Status::passed) {
            wr.status = o.status;
            wr.message = fmt::format("timed repetition {} (checked after the last one): {}", held[i].rep + 1, o.message);
          }
        }
        lock.reset();  // the ceilings may be measured again below, under the lock of their own
        spdlog::debug("{}: {} timed repetitions done ({} checked)", w.name, calls.size(), checked_count);
        const TrustedTimes trusted = trusted_times(calls, null_call, backend_.reports_host_clock());
        if (wr.status == Status::passed && !trusted.inconsistency.empty()) {
          wr.status = Status::rejected;
          wr.message = trusted.inconsistency;
        }
        if (wr.status == Status::passed) {
          wr.timing = summarize(trusted.times_ms);
          wr.host_bound_calls = trusted.host_bound_calls;
          wr.off_clock_charged_calls = trusted.off_clock_charged_calls;
        }
        auto bounds = apply_roofline(w, wr);
        // Faster than the memory or FLOP ceiling allows (possible only where the data fits the caches, or the
        // ceilings' probe ran beside other load): measured again (at most once per backend), the larger values
        // stand.
        if (wr.status == Status::passed && bounds.memory_or_flops_ms > wr.timing.median) {
          ceilings = phase("ceilings", [&] { return backend_.remeasure_ceilings(); });
          bounds = apply_roofline(w, wr);
          ceilings_changed = true;
        }
        const double plausible_ms = bounds.plausible_ms;
        if (wr.status == Status::passed && plausible_ms > 0 && wr.timing.median * options_.implausible_roofline_fraction < plausible_ms) {
          wr.status = Status::rejected;
          wr.message = fmt::format("implausible timing: {:.4f} ms is {:.1f}x faster than this machine's roofline allows ({:.4f} ms); "
                                   "the candidate skips work or defeats the timer", wr.timing.median, plausible_ms / wr.timing.median, plausible_ms);
        }
        // Re-check on fresh inputs at the timed buffers' addresses: catches results cached across calls.
        if (wr.status == Status::passed) {
          const int last_set = options_.rotating_sets - 1;
          const uint64_t seed = secret_seed(task_, w, seed_indices[size_t(options_.trials) % seed_indices.size()]);
          TrialOutcome o = trial(last_set, seed, phase("inputs", [&] { return generate_inputs(task_, w, seed); }));
          if (o.status != Status::passed) {
            wr.status = o.status;
            wr.message = "after timing, on fresh inputs: " + o.message;
          }
        }
      }
    } catch (const runner::RunnerFailure& f) {
      wr.status = failure_status(f);
      wr.message = f.what();
      report.log = tail_lines(process->output_tail(), 30);
      fail_all_remaining(wi + 1, "not run: the runner failed on an earlier workload");
      break;
    } catch (const tasks::ReferenceError&) {  // the task is broken, not the candidate: the caller reports it
      throw;
    } catch (const Error& e) {  // ksearch's own side failed (reference, memory): say so plainly
      wr.status = Status::runtime_error;
      wr.message = std::string("evaluation error: ") + e.what();
    }
  }

  if (options_.memcheck && report.workloads.back().ran) {
    process->finish(options_.call_timeout);
    const std::string output = process->output_tail();
    std::smatch summary;
    if (!std::regex_search(output, summary, std::regex(R"(ERROR SUMMARY: (\d+) error)")) || summary[1] != "0") {
      report.status = Status::runtime_error;
      report.message = summary.empty() ? "the memory checker did not finish its report"
                                       : "the memory checker found " + summary[1].str() + " invalid memory accesses or other errors";
      report.log = tail_lines(output, 40);
      return report;
    }
  }

  if (ceilings_changed)
    for (size_t wi = 0; wi < workloads.size(); ++wi)
      if (report.workloads[wi].timing.samples > 0) apply_roofline(*workloads[wi], report.workloads[wi]);
  // Overall status: the most severe; a workload that never ran counts as failed.
  std::vector<double> speedups, fractions;
  const auto* seeds = (timing && options_.compare_to_seed) ? &seed_times() : nullptr;
  for (auto& wr : report.workloads) {
    if (!wr.ran && report.status == Status::passed) {
      report.status = Status::runtime_error;
      report.message = fmt::format("workload {}: {}", wr.name, wr.message);
    }
    if (wr.status > report.status) {
      report.status = wr.status;
      report.message = fmt::format("workload {}: {}", wr.name, wr.message);
    }
    if (wr.timing.samples > 0) {
      if (seeds && seeds->count(wr.name)) {
        wr.seed_ms = seeds->at(wr.name);
        wr.speedup_vs_seed = wr.seed_ms / wr.timing.median;
        speedups.push_back(wr.speedup_vs_seed);
      }
      if (wr.roofline_fraction > 0) fractions.push_back(wr.roofline_fraction);
    }
  }
  if (report.status == Status::passed) {
    report.speedup_vs_seed = geometric_mean(speedups);
    report.roofline_fraction = geometric_mean(fractions);
    if (report.log.empty()) report.log = tail_lines(process->output_tail(), 10);
  }
  return report;
}

std::optional<EvalReport> Evaluator::memcheck(const std::string& source) {
  if (backend_.memcheck_launcher().empty()) return std::nullopt;
  EvalOptions options = options_;
  options.memcheck = true;
  options.call_timeout = std::chrono::milliseconds(0);
  return Evaluator(task_, backend_, options).evaluate(source);
}

const std::map<std::string, double>& Evaluator::seed_times() {
  if (seed_times_) return *seed_times_;
  const std::string seed_source = read_file(task_.entry(backend_.name()).seed);
  // The machine is named by its profile, not its ceilings: those may be measured again mid-run (remeasure_ceilings),
  // which must not time the seed a second time in another sitting.
  const std::string key = sha256_hex(fmt::format("{}|{}|{}|{}|{}", task_.content_hash, backend_.name(), seed_source,
                                                 backend_.profile().name, options_.target_seconds))
                              .substr(0, 24);
  const fs::path dir = options_.seed_timings_dir.empty() ? cache_subdir("seed-timings") : options_.seed_timings_dir;
  const fs::path file = dir / ("seed-timings-" + task_.name + "-" + backend_.name() + "-" + key + ".json");
  // Entries are keyed by the workload's name and generation spec (Task::generation_spec), so that a workload changed
  // in memory is timed again instead of compared with the file's.
  auto entry_key = [&](const Workload& w) { return w.name + "@" + sha256_hex(task_.generation_spec(w)).substr(0, 16); };
  std::map<std::string, double> stored;
  if (fs::exists(file)) {
    auto j = nlohmann::json::parse(read_file(file), nullptr, false);
    if (j.is_object()) stored = j.get<std::map<std::string, double>>();
  }
  std::map<std::string, double> times;
  bool complete = true;
  for (const Workload* w : selected_workloads()) {
    const auto it = stored.find(entry_key(*w));
    if (it != stored.end()) times[w->name] = it->second;
    else complete = false;
  }
  if (!complete) {
    spdlog::debug("timing the seed of {} on {} (not cached)", task_.name, backend_.name());
    EvalOptions seed_options = options_;
    seed_options.compare_to_seed = false;
    seed_options.workloads = WorkloadSet::all;
    Evaluator seed_evaluator(task_, backend_, seed_options);
    EvalReport seed_report = seed_evaluator.evaluate(seed_source);
    for (const auto& wr : seed_report.workloads)
      if (wr.status == Status::passed && wr.timing.samples > 0) {
        times[wr.name] = wr.timing.median;
        stored[entry_key(task_.workload(wr.name))] = wr.timing.median;
      }
    if (seed_report.status != Status::passed)
      spdlog::warn("the seed kernel of task '{}' does not pass on {}: {}", task_.name, backend_.name(), seed_report.message);
    write_file_atomic(file, json_text(nlohmann::json(stored), 2));
  }
  seed_times_ = times;
  return *seed_times_;
}

}  // namespace ksearch::evaluator
