#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/number_checks.hpp"
#include "cli/run_options.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "planner/search.hpp"
#include "proposers/proposer.hpp"
#include "store/run_store.hpp"
#include "tasks/registry.hpp"

namespace ksearch::cli {
namespace {

struct RunArgs {
  std::string task, backend = "cpu", out, proposer = "builtin";
  planner::SearchOptions search;
  bool json = false;
};

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Search for a fast kernel: world-model planner + proposer, stored for resume");
  cmd->add_option("--task", args->task, "Task name or path of a task file")->required();
  cmd->add_option("--backend", args->backend, "Backend (cpu, cuda, metal)")->capture_default_str();
  cmd->add_option("--rounds", args->search.rounds, "Code rounds (each evaluates up to --parallel candidates)")
      ->capture_default_str()->check(kPositive);
  cmd->add_option("--minutes", args->search.minutes, "Wall-clock budget in minutes (0: none)")->check(kNonNegative);
  cmd->add_option("--out", args->out, "Run folder (default: runs/<task>-<backend>-<timestamp>)");
  cmd->add_option("--parallel", args->search.parallel, "Candidates per round, compiled concurrently")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_flag("--seed-eval", args->search.seed_eval, "Evaluate the seed itself first (round 0)");
  cmd->add_option("--proposer", args->proposer, "Proposer (builtin, or one added by a plugin)")->capture_default_str();
  cmd->add_option("--stagnation", args->search.stagnation_window, "Rounds without improvement that end a cycle")
      ->capture_default_str()->check(kPositive);
  cmd->add_option("--difficulty-cap", args->search.select.difficulty_cap, "Hardest action difficulty (1-5) selected")
      ->capture_default_str()->check(CLI::Range(1, 5));
  cmd->add_option("--explore", args->search.select.exploration, "Exploration constant c of the selection score")
      ->capture_default_str()->check(kNonNegative);
  cmd->add_flag("--json", args->json, "Print one JSON object at the end (progress goes to stderr)");
  std::vector<ApplyProposerOptions> appliers;
  for (auto& hook : run_options_hooks()) appliers.push_back(hook(*cmd));
  cmd->callback([args, appliers, &exit_code] {
    const Task task = resolve_task(args->task);
    auto backend = make_backend(args->backend);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + args->backend + " is not available here: " + why);
    task.entry(backend->name());  // throws Error when the task has no entry for this backend
    proposers::ProposerSpec spec;
    spec.name = args->proposer;
    for (const auto& apply : appliers) apply(spec);
    auto proposer = proposers::make_proposer(spec, {&task, backend.get()});

    std::filesystem::path dir = args->out;
    if (dir.empty()) {
      const auto now = std::chrono::system_clock::now();
      dir = std::filesystem::path("runs") /
            fmt::format("{}-{}-{:%Y%m%d-%H%M%S}", task.name, backend->name(), fmt::localtime(std::chrono::system_clock::to_time_t(now)));
    }
    store::RunInfo info;
    info.task_name = task.name;
    info.task_file = std::filesystem::absolute(task.file).string();
    info.task_hash = task.content_hash;
    info.backend = backend->name();
    info.config = {{"search", args->search.to_json()}, {"proposer", {{"name", spec.name}, {"config", spec.config}}}};
    auto store = store::RunStore::create(dir, info);
    exit_code = run_session(store, task, *backend, *proposer, args->search, {args->json});
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(30, setup);
}  // namespace ksearch::cli
