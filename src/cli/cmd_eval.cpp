#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"
#include "core/json_text.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadSet;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

namespace ksearch::cli {
namespace {

struct EvalArgs {
  std::string task, backend = "cpu", file, workloads = "all";
  bool json = false, no_timing = false, memcheck = false;
  double call_timeout = 0;
};

bool host_bound(const ksearch::evaluator::WorkloadResult& w) { return 2 * w.host_bound_calls > w.timing.samples; }

void print_table(const EvalReport& r, bool verbose_log) {
  fmt::print("task {}  backend {}  status {}\n", r.task, r.backend, status_name(r.status));
  if (!r.message.empty()) fmt::print("  {}\n", r.message);
  if (!r.workloads.empty()) {
    fmt::print("\n{:<44} {:<13} {:>10} {:>10} {:>11} {:>7} {:>9} {:>9} {}\n", "workload", "status", "max_abs", "max_rel",
               "median_ms", "spread", "vs_seed", "roofline", "bound");
    for (const auto& w : r.workloads) {
      const std::string name = w.name + (w.held_out ? " (h)" : "") + (w.reference == "device" ? " (d)" : "") +
                               (host_bound(w) ? " (host)" : "");
      if (w.timing.samples > 0)
        fmt::print("{:<44} {:<13} {:>10.2e} {:>10.2e} {:>11.4f} {:>6.1f}% {:>8.2f}x {:>8.1f}% {}\n", name,
                   status_name(w.status), w.max_abs_err, w.max_rel_err, w.timing.median, 100 * w.timing.spread(),
                   w.speedup_vs_seed, 100 * w.roofline_fraction, w.roofline_bound);
      else
        fmt::print("{:<44} {:<13} {:>10.2e} {:>10.2e} {:>11} {:>7} {:>9} {:>9}\n", name, status_name(w.status),
                   w.max_abs_err, w.max_rel_err, "-", "-", "-", "-");
    }
    if (std::any_of(r.workloads.begin(), r.workloads.end(), [](const auto& w) { return w.reference == "device"; }))
      fmt::print("(d): checked against the task's device reference for {}\n", r.backend);
    if (std::any_of(r.workloads.begin(), r.workloads.end(), host_bound))
      fmt::print("(host): most timed calls took the runner's main thread longer on the CPU than its clock saw; the time is "
                 "the host side's (launches, synchronization, the candidate's host code)\n");
    for (const auto& w : r.workloads)
      if (w.status != Status::passed && !w.message.empty()) fmt::print("  {}: {}\n", w.name, w.message);
  }
  if (r.status == Status::passed && r.timed)
    fmt::print("\nspeedup vs seed {:.2f}x (geometric mean), roofline fraction {:.1f}%\n", r.speedup_vs_seed,
               100 * r.roofline_fraction);
  if (!r.timed && r.status == Status::passed) fmt::print("\nno timing on this backend/host: correctness only\n");
  // (the candidate's own output among it)
  // Each line marked as quoted: a candidate's output may imitate ksearch's own lines ("[ksearch] ...", a verdict).
  if (!r.log.empty() && (r.status != Status::passed || verbose_log)) {
    fmt::print("\nlog (quoted after '| ': the compiler's or the rules' messages, or what the candidate's process printed):\n");
    std::istringstream lines(printable(r.log, true));
    for (std::string line; std::getline(lines, line);) fmt::print("| {}\n", line);
  }
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EvalArgs>();
  auto* cmd = app.add_subcommand("eval", "Compile, verify and time one candidate kernel");
  cmd->add_option("--task", args->task, "Task name or path of a task file")->required();
  cmd->add_option("--backend", args->backend, "Backend (cpu, cuda, metal)");
  cmd->add_option("file", args->file, "Candidate source file")->required();
  cmd->add_option("--workloads", args->workloads, "Which workloads: all, visible or held-out")
      ->check(CLI::IsMember({"all", "visible", "held-out"}));
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->add_flag("--no-timing", args->no_timing, "Check correctness only");
  cmd->add_flag("--memcheck", args->memcheck,
                "Run one untimed call per workload under the backend's memory checker (cuda: compute-sanitizer), "
                "as a run's best kernel is checked");
  cmd->add_option("--call-timeout", args->call_timeout, "Seconds one call of the candidate may take (default: the backend's, 20 s on cpu)")
      ->check(CLI::Validator(
          [](std::string& text) {
            const double seconds = std::strtod(text.c_str(), nullptr);
            return seconds >= 0.001 && seconds <= 86400 ? std::string() : "--call-timeout: " + text + " is not 0.001 to 86400 seconds";
          },
          "SECONDS"));
  cmd->callback([args, &exit_code] {
    const Task task = resolve_task(args->task);
    auto backend = make_backend(args->backend);
    if (!std::filesystem::exists(args->file)) throw Error("candidate file not found: " + args->file);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + args->backend + " is not available here: " + why);
    EvalOptions options;
    options.workloads = args->workloads == "visible" ? WorkloadSet::visible
                        : args->workloads == "held-out" ? WorkloadSet::held_out : WorkloadSet::all;
    options.time = !args->no_timing;
    options.call_timeout = std::chrono::milliseconds(int64_t(args->call_timeout * 1000));
    Evaluator evaluator(task, *backend, options);
    EvalReport report;
    if (args->memcheck) {
      std::optional<EvalReport> checked = evaluator.memcheck(read_file(args->file));
      if (!checked) throw Error("backend " + args->backend + " has no memory checker");
      report = std::move(*checked);
    } else {
      report = evaluator.evaluate(read_file(args->file));
    }
    if (args->json) fmt::print("{}\n", json_text(report.to_json(), 2));
    else print_table(report, args->memcheck);
    exit_code = report.status == Status::passed ? kExitOk : kExitCandidateFailed;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(20, setup);
}  // namespace ksearch::cli
