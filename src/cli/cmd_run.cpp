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
#include "search/search.hpp"
#include "proposers/proposer.hpp"
#include "store/run_store.hpp"
#include "tasks/registry.hpp"

namespace ksearch::cli {
namespace {

struct RunArgs {
  std::string task, backend = "cpu", out, proposer = "builtin";
  search::SearchOptions search;
  search::StrategySpec strategy;
  std::vector<std::string> strategy_options;  // KEY=VALUE
  int stagnation = 0, difficulty_cap = 0;
  double explore = 0;
  bool json = false;
};

// --strategy-option KEY=VALUE: VALUE is read as JSON (numbers, booleans), else taken as a string.
void add_strategy_option(nlohmann::json& config, const std::string& option) {
  const auto eq = option.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--strategy-option expects KEY=VALUE, got '" + option + "'");
  const std::string value = option.substr(eq + 1);
  const auto parsed = nlohmann::json::parse(value, nullptr, false);
  config[option.substr(0, eq)] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Search for a fast kernel: a strategy + a proposer, stored for resume");
  cmd->add_option("--task", args->task, "Task name or path of a task file")->required();
  cmd->add_option("--backend", args->backend, "Backend (cpu, cuda, metal)")->capture_default_str();
  cmd->add_option("--rounds", args->search.rounds, "Code rounds (each evaluates up to --parallel candidates)")
      ->capture_default_str()->check(kPositive);
  cmd->add_option("--minutes", args->search.minutes, "Wall-clock budget in minutes (0: none)")->check(kNonNegative);
  cmd->add_option("--out", args->out, "Run folder (default: runs/<task>-<backend>-<timestamp>)");
  cmd->add_option("--parallel", args->search.parallel, "Candidates per round, compiled concurrently")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_flag("--seed-eval", args->search.seed_eval, "Evaluate the seed itself first (round 0)");
  cmd->add_option("--finalists", args->search.finalists, "Best candidates re-timed against the seed at the end (0: none)")
      ->capture_default_str()->check(CLI::Range(0, 64));
  cmd->add_option("--retime-rounds", args->search.retime_rounds, "Interleaved rounds of that re-timing")
      ->capture_default_str()->check(CLI::Range(2, 100));
  cmd->add_option("--proposer", args->proposer, "Proposer (builtin, or one added by a plugin)")->capture_default_str();
  cmd->add_option("--strategy", args->strategy.name, "Search strategy: world_model (K-Search) or annealing (simulated annealing over template knobs)")
      ->capture_default_str();
  cmd->add_option("--strategy-option", args->strategy_options, "A strategy option KEY=VALUE (repeatable; see docs/SEARCH.md)");
  auto* stagnation = cmd->add_option("--stagnation", args->stagnation, "world_model: rounds without improvement that end a cycle (default 5)")
                         ->check(kPositive);
  auto* difficulty = cmd->add_option("--difficulty-cap", args->difficulty_cap, "world_model: hardest action difficulty (1-5) selected (default 4)")
                         ->check(CLI::Range(1, 5));
  auto* explore = cmd->add_option("--explore", args->explore, "world_model: exploration constant c of the selection score (default 0.5)")
                      ->check(kNonNegative);
  cmd->add_flag("--json", args->json, "Print one JSON object at the end (progress goes to stderr)");
  std::vector<ApplyProposerOptions> appliers;
  for (auto& hook : run_options_hooks()) appliers.push_back(hook(*cmd));
  cmd->callback([args, appliers, stagnation, difficulty, explore, &exit_code] {
    if (stagnation->count()) args->strategy.config["stagnation_window"] = args->stagnation;
    if (difficulty->count()) args->strategy.config["difficulty_cap"] = args->difficulty_cap;
    if (explore->count()) args->strategy.config["exploration"] = args->explore;
    for (const auto& option : args->strategy_options) add_strategy_option(args->strategy.config, option);
    const Task task = resolve_task(args->task);
    auto backend = make_backend(args->backend);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + args->backend + " is not available here: " + why);
    task.entry(backend->name());  // throws Error when the task has no entry for this backend
    proposers::ProposerSpec spec;
    spec.name = args->proposer;
    for (const auto& apply : appliers) apply(spec);
    auto proposer = proposers::make_proposer(spec, {&task, backend.get()});
    auto strategy = search::make_strategy(args->strategy, {&task, backend.get()});

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
    info.config = {{"search", args->search.to_json()},
                   {"strategy", {{"name", args->strategy.name}, {"config", args->strategy.config}}},
                   {"proposer", {{"name", spec.name}, {"config", spec.config}}}};
    auto store = store::RunStore::create(dir, info);
    exit_code = run_session(store, task, *backend, *proposer, *strategy, args->search, {args->json});
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(30, setup);
}  // namespace ksearch::cli
