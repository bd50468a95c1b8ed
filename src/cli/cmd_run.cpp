#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/number_checks.hpp"
#include "cli/run_from.hpp"
#include "cli/run_options.hpp"
#include "cli/search_config.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "executors/executor.hpp"
#include "search/search.hpp"
#include "proposers/proposer.hpp"
#include "store/run_store.hpp"
#include "tasks/registry.hpp"
#include "translate/translate.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

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
  std::string executor = "local", devices, partition, gres;
  int max_jobs = 0, time_limit = 0;
  std::string from;  // --from: a cuda run or a .cu file whose port seeds a metal search
  int from_top = 3;
};

// --executor and its options, as the run stores them (`resume` evaluates where `run` did).
executors::ExecutorSpec executor_spec(const RunArgs& args) {
  executors::ExecutorSpec spec;
  spec.name = args.executor;
  const bool slurm_options = !args.partition.empty() || !args.gres.empty() || args.max_jobs || args.time_limit;
  if (spec.name != "slurm" && slurm_options)
    throw Error("--partition, --gres, --max-jobs and --time-limit are options of --executor slurm");
  if (spec.name != "local" && !args.devices.empty()) throw Error("--devices is an option of --executor local");
  if (!args.devices.empty()) {
    if (args.devices == "all") {
      spec.config["devices"] = "all";
    } else {
      std::vector<std::string> ids;
      std::stringstream list(args.devices);
      for (std::string id; std::getline(list, id, ',');) {
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
          throw Error("--devices expects all or a list of device ids like 0,1, got '" + args.devices + "'");
        ids.push_back(id);
      }
      spec.config["devices"] = ids;
    }
  }
  if (!args.partition.empty()) spec.config["partition"] = args.partition;
  if (!args.gres.empty()) spec.config["gres"] = args.gres;
  if (args.max_jobs) spec.config["max_jobs"] = args.max_jobs;
  if (args.time_limit) spec.config["time_limit_minutes"] = args.time_limit;
  return spec;
}

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
  add_config_file_options(*cmd);  // first: the file fills in the options added below
  cmd->add_option("--task", args->task, "Task name or path of a task file")->required();
  cmd->add_option("--backend", args->backend, "Backend (cpu, cuda, metal)")->capture_default_str();
  cmd->add_option("--rounds", args->search.rounds, "Rounds: proposals of up to --parallel candidates each")
      ->capture_default_str()->check(kPositive);
  cmd->add_option("--minutes", args->search.minutes, "Wall-clock budget in minutes (0: none)")->check(kNonNegative);
  cmd->add_option("--out", args->out, "Run folder (default: runs/<task>-<backend>-<timestamp>)");
  cmd->add_option("--parallel", args->search.parallel, "Candidates in flight per device (builds overlap timing), and at most per round")
      ->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--proposer-concurrency", args->search.proposer_concurrency,
                  "Proposer calls writing code at once (0: enough to fill the evaluation places, their number / --parallel, "
                  "for a proposer that allows concurrent calls such as --llm; the agent and built-in proposers take one at a time)")
      ->capture_default_str()->check(CLI::Range(0, 256));
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
  cmd->add_option("--executor", args->executor, "Where evaluations run: local (this host) or slurm (batch jobs on a cluster)")
      ->capture_default_str();
  cmd->add_option("--devices", args->devices, "local: the devices evaluations are spread over, all or ids like 0,1 (one runner each)");
  cmd->add_option("--partition", args->partition, "slurm: the partition jobs are submitted to (default: the cluster's)");
  cmd->add_option("--gres", args->gres, "slurm: generic resources per job, e.g. gpu:1");
  cmd->add_option("--max-jobs", args->max_jobs, "slurm: jobs queued or running at once (default 8)")->check(kPositive);
  cmd->add_option("--time-limit", args->time_limit, "slurm: minutes a job may run (default: the partition's)")->check(kPositive);
  cmd->add_flag("--json", args->json, "Print one JSON object at the end (progress goes to stderr)");
  cmd->add_option("--from", args->from,
                  "metal: start from a port of a finished cuda run's best kernels (RUN_DIR) or of a CUDA file (FILE.cu)");
  cmd->add_option("--from-top", args->from_top, "--from RUN_DIR: how many of its best passing kernels to port")
      ->capture_default_str()->check(kPositive);
  std::vector<ApplyProposerOptions> appliers;
  for (auto& hook : run_options_hooks()) appliers.push_back(hook(*cmd));
  cmd->callback([args, appliers, stagnation, difficulty, explore, &exit_code] {
    if (stagnation->count()) args->strategy.config["stagnation_window"] = args->stagnation;
    if (difficulty->count()) args->strategy.config["difficulty_cap"] = args->difficulty_cap;
    if (explore->count()) args->strategy.config["exploration"] = args->explore;
    for (const auto& option : args->strategy_options) add_strategy_option(args->strategy.config, option);
    const executors::ExecutorSpec executor = executor_spec(*args);
    Task task = resolve_task(args->task);
    auto backend = make_backend(args->backend);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + args->backend + " is not available here: " + why);
    if (!args->from.empty()) {
      if (backend->name() != "metal") throw Error("--from seeds a metal search with ported CUDA kernels: use --backend metal");
      tasks::add_metal_entry_from_cuda(task);
      args->search.seed_eval = true;  // the port is evaluated first: the search's root
    }
    task.entry(backend->name());  // throws Error when the task has no entry for this backend
    std::filesystem::path dir = args->out;
    if (dir.empty()) {
      const auto now = std::chrono::system_clock::now();
      dir = std::filesystem::path("runs") /
            fmt::format("{}-{}-{:%Y%m%d-%H%M%S}", task.name, backend->name(), fmt::localtime(std::chrono::system_clock::to_time_t(now)));
    }
    // Made once here so that an executor that cannot work (unknown, bad options, no sbatch) stops
    // the run before its folder exists; the search makes its own from the stored spec.
    executors::make_executor(executor, {&task, backend.get(), {}, dir});
    // --from: the port becomes the task's metal seed before the proposer reads it.
    PortedSeed ported;
    if (!args->from.empty()) {
      if (store::RunStore::exists(dir)) throw Error("a run already exists in " + dir.string());
      ported = port_seeds(args->from, task, dir, args->from_top, backend->profile().rules);
      if (ported.seed.empty())
        throw Error("--from: no kernel of " + args->from + " translated completely:\n  " + fmt::format("{}", fmt::join(ported.events, "\n  ")));
    }
    const search::Transfer transfer = use_ported_seed(task, {{"from", ported.lineage}});
    proposers::ProposerSpec spec;
    spec.name = args->proposer;
    for (const auto& apply : appliers) apply(spec);
    auto proposer = proposers::make_proposer(spec, {&task, backend.get()});
    check_proposer_concurrency(args->search.proposer_concurrency, *proposer);
    auto strategy = search::make_strategy(args->strategy, {&task, backend.get()});

    store::RunInfo info;
    info.task_name = task.name;
    info.task_file = std::filesystem::absolute(task.file).string();
    info.task_hash = task.content_hash;
    info.backend = backend->name();
    info.config = {{"search", args->search.to_json()},
                   {"strategy", {{"name", args->strategy.name}, {"config", args->strategy.config}}},
                   {"proposer", {{"name", spec.name}, {"config", spec.config}}},
                   {"executor", executor.to_json()}};
    if (!args->from.empty()) info.config["from"] = ported.lineage;
    auto store = store::RunStore::create(dir, info);
    for (const auto& line : ported.events) store.add_event(0, "port", line);
    exit_code = run_session(store, task, *backend, *proposer, *strategy, args->search, {args->json}, transfer);
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(30, setup);
}  // namespace ksearch::cli
