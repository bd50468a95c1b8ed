// `ksearch runs`: lists the runs in the default runs folder and the folders given, and compares runs
// of one task workload by workload. Read-only: opens each store without its lock and writes nothing.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "report/report.hpp"
#include "search/search.hpp"
#include "store/run_lock.hpp"
#include "store/run_store.hpp"
#include "core/json_text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksearch::cli {
namespace {

// Where `ksearch run` puts a run without --out (relative to the working folder).
const fs::path kDefaultRunsFolder = "runs";

struct RunsArgs {
  std::vector<std::string> dirs;
  bool json = false, compare = false;
};

struct RunRow {
  search::RunSummary summary;
  std::string strategy;  // from the state, else as configured (a run that has not started a round yet)
  std::string status;    // running, waiting (for an agent's answer), finished, interrupted
  std::optional<int> writer_pid;
  double started_at = 0, updated_at = 0;
};

// A run folder is one with a run.db; any other folder holds runs in its subfolders.
std::vector<fs::path> find_runs(const std::vector<std::string>& dirs) {
  std::vector<fs::path> roots;
  if (fs::is_directory(kDefaultRunsFolder)) roots.push_back(kDefaultRunsFolder);
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir)) throw Error(dir + " is not a folder (pass run folders or folders that hold runs)");
    roots.push_back(dir);
  }
  std::set<fs::path> seen;
  std::vector<fs::path> runs;
  auto add = [&](const fs::path& dir) {
    if (seen.insert(fs::weakly_canonical(dir)).second) runs.push_back(dir);
  };
  for (const auto& root : roots) {
    if (store::RunStore::exists(root)) {
      add(root);
      continue;
    }
    std::vector<fs::path> inside;
    for (const auto& entry : fs::directory_iterator(root))
      if (entry.is_directory() && store::RunStore::exists(entry.path())) inside.push_back(entry.path());
    std::sort(inside.begin(), inside.end());
    for (const auto& run : inside) add(run);
  }
  return runs;
}

RunRow read_row(const fs::path& dir) {
  const auto store = store::RunStore::open(dir);
  RunRow row;
  row.summary = search::summarize(store);
  row.summary.run_dir = dir.lexically_normal().string();  // as the user named it: shorter than absolute
  const auto info = store.info();
  row.strategy = !row.summary.strategy.empty() ? row.summary.strategy
                                               : info.config.value("strategy", json::object()).value("name", "");
  row.started_at = info.created_at;
  row.updated_at = store.updated_at();
  row.writer_pid = store::RunLock::holder(dir);
  const auto pending = store.pending();
  if (row.writer_pid) row.status = "running";
  else if (row.summary.phase == "done") row.status = "finished";
  else if (pending && !pending->answer) row.status = "waiting";
  else row.status = "interrupted";
  return row;
}

// Rows of the runs found, oldest first; a folder whose run.db cannot be read is skipped with a warning.
std::vector<RunRow> read_rows(const std::vector<fs::path>& runs) {
  std::vector<RunRow> rows;
  for (const auto& dir : runs) {
    try {
      rows.push_back(read_row(dir));
    } catch (const Error& e) {
      spdlog::warn("skipping {}: {}", dir.string(), e.what());
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RunRow& a, const RunRow& b) { return a.started_at < b.started_at; });
  return rows;
}

std::string local_time(double unix_seconds) {
  return fmt::format("{:%Y-%m-%d %H:%M}", fmt::localtime(std::time_t(unix_seconds)));
}

json row_json(const RunRow& row) {
  json j = row.summary.to_json();
  j["strategy"] = row.strategy;
  j["status"] = row.status;
  j["writer_pid"] = row.writer_pid ? json(*row.writer_pid) : json();
  j["started_at"] = row.started_at;
  j["updated_at"] = row.updated_at;
  return j;
}

std::string best_text(const search::RunSummary& s) {
  if (!s.has_best) return "-";
  std::string text = fmt::format("{:.2f}x", s.best_speedup);
  if (s.held_out_passed && !*s.held_out_passed) text += " (held-out FAILED)";
  return text;
}

void print_list(const std::vector<RunRow>& rows) {
  fmt::print("{:<44} {:<16} {:<7} {:<22} {:<11} {:>7} {:>5} {:>8}  {:<16} {}\n", "run", "task", "backend", "proposer/strategy",
             "status", "rounds", "cand", "best", "started", "updated");
  for (const auto& r : rows) {
    const auto& s = r.summary;
    fmt::print("{:<44} {:<16} {:<7} {:<22} {:<11} {:>7} {:>5} {:>8}  {:<16} {}\n", s.run_dir, s.task, s.backend,
               s.proposer + "/" + r.strategy, r.status, fmt::format("{}/{}", s.rounds, s.rounds_budget), s.candidates,
               best_text(s), local_time(r.started_at), local_time(r.updated_at));
  }
}

// One run's best kernel per workload name (the report's workload entries): visible workloads from
// its evaluation, held-out ones from the final check (if the run got that far).
std::map<std::string, json> best_workloads(const report::RunData& run) {
  std::map<std::string, json> by_name;
  if (const auto* best = run.best(); best && best->report.is_object())
    for (const auto& w : best->report.value("workloads", json::array())) by_name[w.value("name", "")] = w;
  if (run.best_held_out.is_object())
    for (const auto& w : run.best_held_out.value("workloads", json::array()))
      if (w.value("held_out", false)) by_name[w.value("name", "")] = w;
  return by_name;
}

// Side by side, per task: a column per run, a row per workload (the best kernel's median and its
// speedup over the seed), preceded by each run's setup and overall result.
json compare_task(const std::vector<const RunRow*>& rows) {
  json runs = json::array();
  std::vector<std::string> workload_order;
  std::set<std::string> seen;
  for (const auto* row : rows) {
    const auto run = report::load_run(row->summary.run_dir);
    json workloads = json::object();
    for (const auto& [name, w] : best_workloads(run)) {
      if (seen.insert(name).second) workload_order.push_back(name);
      workloads[name] = {{"median_ms", w.value("median_ms", 0.0)},
                         {"speedup_vs_seed", w.value("speedup_vs_seed", 0.0)},
                         {"held_out", w.value("held_out", false)},
                         {"status", w.value("status", "")}};
    }
    json j = row_json(*row);
    j["workloads"] = workloads;
    runs.push_back(j);
  }
  return {{"task", rows.front()->summary.task}, {"workloads", workload_order}, {"runs", runs}};
}

void print_comparison(const json& table) {
  const auto& runs = table["runs"];
  constexpr int kLabel = 22, kColumn = 24;
  auto line = [&](const std::string& label, auto cell) {
    std::string text = fmt::format("{:<{}}", label, kLabel);
    for (const auto& run : runs) text += fmt::format(" {:>{}}", cell(run), kColumn);
    fmt::print("{}\n", text);
  };
  fmt::print("task {}\n", table["task"].get<std::string>());
  line("run", [](const json& r) {
    const std::string dir = r["run_dir"];
    return dir.size() > size_t(kColumn) ? "..." + dir.substr(dir.size() - size_t(kColumn) + 3) : dir;
  });
  line("backend", [](const json& r) { return r["backend"].get<std::string>(); });
  line("proposer/strategy", [](const json& r) { return r["proposer"].get<std::string>() + "/" + r["strategy"].get<std::string>(); });
  line("status", [](const json& r) { return r["status"].get<std::string>(); });
  line("rounds, evaluations", [](const json& r) { return fmt::format("{}, {}", r["rounds"].get<int>(), r["evaluations"].get<int64_t>()); });
  line("best (vs seed)", [](const json& r) {
    return r.contains("best") ? fmt::format("{} {:.2f}x", r["best"]["candidate_id"].get<std::string>(), r["best"]["speedup_vs_seed"].get<double>())
                              : std::string("-");
  });
  for (const auto& name : table["workloads"]) {
    bool held_out = false;
    for (const auto& r : runs)
      if (r["workloads"].contains(name)) held_out = r["workloads"][name]["held_out"];
    line(name.get<std::string>() + (held_out ? " (held-out)" : ""), [&](const json& r) {
      if (!r["workloads"].contains(name)) return std::string("-");
      const auto& w = r["workloads"][name];
      return fmt::format("{:.4f} ms {:.2f}x", w["median_ms"].get<double>(), w["speedup_vs_seed"].get<double>());
    });
  }
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunsArgs>();
  auto* cmd = app.add_subcommand("runs", "List runs (./runs and the folders given): task, setup, status, best; or compare them per workload");
  cmd->add_option("dir", args->dirs, "Run folders, or folders holding runs (./runs is always included when it exists)");
  cmd->add_flag("--compare", args->compare, "Put runs of the same task side by side, one row per workload (best kernel's median ms and speedup)");
  cmd->add_flag("--json", args->json, "Print JSON (a list of runs; with --compare, one table per task)");
  cmd->callback([args, &exit_code] {
    const auto rows = read_rows(find_runs(args->dirs));
    exit_code = kExitOk;
    if (!args->compare) {
      if (args->json) {
        json list = json::array();
        for (const auto& row : rows) list.push_back(row_json(row));
        fmt::print("{}\n", json_text(list, 2));
      } else if (rows.empty()) {
        fmt::print(stderr, "no runs found (looked in ./{} and the folders given)\n", kDefaultRunsFolder.string());
      } else {
        print_list(rows);
      }
      return;
    }
    std::map<std::string, std::vector<const RunRow*>> by_task;
    for (const auto& row : rows) by_task[row.summary.task].push_back(&row);
    if (by_task.empty()) throw Error("no runs to compare (looked in ./" + kDefaultRunsFolder.string() + " and the folders given)");
    json tables = json::array();
    for (const auto& [task, task_rows] : by_task) tables.push_back(compare_task(task_rows));
    if (args->json) {
      fmt::print("{}\n", json_text(tables, 2));
      return;
    }
    for (size_t i = 0; i < tables.size(); ++i) {
      if (i) fmt::print("\n");
      print_comparison(tables[i]);
    }
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(34, setup);
}  // namespace ksearch::cli
