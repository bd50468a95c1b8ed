// `ksearch export`: the verification record of a run's best kernel; the files themselves come from
// its backend (Backend::export_bundle).
#include <fmt/format.h>

#include <ctime>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "report/report.hpp"
#include "tasks/signature.hpp"
#include "tasks/task.hpp"

using ksearch::backends::Backend;
using ksearch::backends::ExportBundle;
using ksearch::backends::make_backend;
using ksearch::tasks::CallConvention;
using ksearch::tasks::argument_table;
using ksearch::tasks::Task;
using ksearch::tasks::entry_prototype;
using ksearch::tasks::load_run_task;

using nlohmann::json;

namespace ksearch::report {

namespace {

std::string date_text(double unix_seconds) {
  const std::time_t t = std::time_t(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M %Z", &tm);
  return buf;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Workload names with their verdicts, e.g. "small (passed), large (passed)".
std::string workload_verdicts(const json& report) {
  std::string out;
  if (!report.is_object()) return out;
  for (const auto& w : report.value("workloads", json::array()))
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", w.value("name", ""), w.value("status", ""));
  return out;
}

std::string verification_text(const RunData& run, const Task& task, const store::Candidate& best, const Backend& target) {
  const std::string backend = target.name();
  const CallConvention convention = target.call_convention();
  const auto& s = run.summary;
  std::string t = fmt::format("{}: {}\n", task.name, first_line(task.description));
  t += fmt::format("Exported by ksearch on {} from run {}, candidate c{} (round {}, node {}, proposer {}).\n", date_text(double(std::time(nullptr))),
                   run.dir.string(), best.id, best.round, best.node_id, best.proposer);
  if (run.world_model)
    if (const world_model::Node* n = run.world_model->find(best.node_id); n && n->action) t += "Optimization: " + n->action->title + "\n";
  t += "\nEntry point (backend " + backend + "):\n  " + entry_prototype(task, backend, convention) + "\n";
  t += argument_table(task, backend, convention, "  ");

  t += fmt::format("\nVerified by ksearch on {} against the task's reference (fresh random inputs per trial):\n", date_text(best.evaluated_at));
  t += "  visible workloads: " + workload_verdicts(best.report) + "\n";
  if (run.best_held_out.is_object())
    t += fmt::format("  held-out workloads: {} ({}){}\n", s.held_out_passed.value_or(false) ? "passed" : "FAILED",
                     workload_verdicts(run.best_held_out),
                     s.held_out_speedup > 0 ? fmt::format(", {:.2f}x vs seed", s.held_out_speedup) : "");
  else if (task.workloads_for(backend, true).empty())
    t += "  held-out workloads: none for this backend\n";
  else
    t += "  held-out workloads: not checked (the run has not reached its final verdict)\n";
  if (best.speedup_vs_seed > 0)
    t += fmt::format("  speedup vs the task's seed: {:.2f}x (geometric mean over the visible workloads); median {:.4g} ms; "
                     "roofline {:.1f}%\n",
                     best.speedup_vs_seed, best.median_ms, 100 * best.roofline_fraction);
  else
    t += "  not timed (this backend checks correctness only)\n";
  if (!run.info.task_hash.empty() && task.content_hash != run.info.task_hash)
    t += "  WARNING: the task file changed since the run; this verification is for the earlier version.\n";
  return t;
}

}  // namespace

ExportBundle export_bundle(const RunData& run, const std::string& format) {
  const store::Candidate* best = run.best();
  if (!best) {
    const auto& s = run.summary;
    if (s.held_out_passed == false)
      throw NothingToExport("no candidate of the run in " + run.dir.string() + " passed the held-out workloads; nothing to export");
    throw NothingToExport("the run in " + run.dir.string() + " has no passing candidate yet; nothing to export");
  }
  if (run.info.task_file.empty() || !std::filesystem::exists(run.info.task_file))
    throw Error("the run's task file " + run.info.task_file + " is missing; it is needed for the entry signature");
  const Task task = load_run_task(run.info.task_file, run.info.backend);
  const auto backend = make_backend(run.info.backend);
  return backend->export_bundle(task, best->source, verification_text(run, task, *best, *backend), format);
}

}  // namespace ksearch::report
