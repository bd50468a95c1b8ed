#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/run_from.hpp"
#include "cli/number_checks.hpp"
#include "cli/run_options.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "search/search.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

namespace ksearch::cli {
namespace {

struct ResumeArgs {
  std::string dir, proposer;
  int rounds = 0;
  double minutes = -1;
  int proposer_concurrency = -1;  // -1: the run's
  bool json = false;
};

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ResumeArgs>();
  auto* cmd = app.add_subcommand("resume", "Continue a stopped or killed run where it left off");
  cmd->add_option("dir", args->dir, "Run folder")->required();
  cmd->add_option("--rounds", args->rounds, "New total round budget (default: the run's)")->check(kPositive);
  cmd->add_option("--minutes", args->minutes, "New total time budget in minutes (0: none)")->check(kNonNegative);
  cmd->add_option("--proposer-concurrency", args->proposer_concurrency,
                  "New number of proposer calls writing code at once (0: enough to fill the evaluation places; default: the run's)")
      ->check(CLI::Range(0, 256));
  cmd->add_flag("--json", args->json, "Print one JSON object at the end (progress goes to stderr)");
  // The proposer flags of `ksearch run` (--llm, --agent, ...): given, they replace the run's proposer settings.
  cmd->add_option("--proposer", args->proposer, "Continue with this proposer (builtin, or one added by a plugin)");
  std::vector<ApplyProposerOptions> appliers;
  for (auto& hook : run_options_hooks()) appliers.push_back(hook(*cmd));
  cmd->callback([args, appliers, &exit_code] {
    auto store = store::RunStore::open(args->dir, store::RunStore::Access::write);
    auto info = store.info();
    Task task = load_task(info.task_file);
    const search::Transfer transfer = use_ported_seed(task, info.config);  // a run started with --from resumes from its port
    if (task.content_hash != info.task_hash)
      spdlog::warn("the task file {} changed since the run started; continuing with the current version", info.task_file);
    auto backend = make_backend(info.backend);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + info.backend + " is not available here: " + why);
    auto options = search::SearchOptions::from_json(info.config.value("search", nlohmann::json::object()));
    bool changed = false;
    if (args->rounds > 0) options.rounds = args->rounds, changed = true;
    if (args->minutes >= 0) options.minutes = args->minutes, changed = true;
    proposers::ProposerSpec spec = stored_proposer(info);
    const proposers::ProposerSpec before = spec;
    if (!args->proposer.empty() && args->proposer != spec.name) spec = {args->proposer, nlohmann::json::object()};
    for (const auto& apply : appliers) apply(spec);
    auto proposer = proposers::make_proposer(spec, {&task, backend.get(), &store});  // a bad spec fails before it is recorded
    if (args->proposer_concurrency >= 0) {  // checked against the proposer it continues with, before anything is stored
      check_proposer_concurrency(args->proposer_concurrency, *proposer);
      options.proposer_concurrency = args->proposer_concurrency;
      changed = true;
    }
    if (spec.name != before.name || spec.config != before.config) {
      // Recorded: the run's config holds the settings in use, the events when and from what they changed.
      auto history = info.config.value("proposer_history", nlohmann::json::array());
      history.push_back({{"name", before.name}, {"config", before.config}, {"until", store::now_seconds()}});
      info.config["proposer_history"] = history;
      info.config["proposer"] = {{"name", spec.name}, {"config", spec.config}};
      const auto stored = store.load_state();
      const int round = stored ? search::LoopState::from_json(*stored).round : 0;
      store.transaction([&] {
        store.set_config(info.config);
        store.add_event(round, "message", fmt::format("resumed with proposer {} (was {})", spec.name, before.name));
      });
    }
    if (changed) {
      info.config["search"] = options.to_json();
      store.set_config(info.config);
    }
    if (const auto stored = store.load_state()) {
      auto state = search::LoopState::from_json(*stored);
      if (args->rounds > 0 && args->rounds <= state.round)
        spdlog::warn("--rounds {} is not above the {} rounds this run has done: it ends without new rounds", args->rounds,
                     state.round);
      // A larger budget reopens a finished run, and so does a run its proposer had stopped with rounds left (an
      // outage, an unusable model or account) unless the proposer still cannot go on (its spending cap): back to the
      // strategy's next step, the verdict is redone at the end.
      const bool retry = state.stopped_by_proposer && proposer->stop_reason().empty();
      if (state.phase == search::Phase::done && options.rounds > state.round && (changed || retry)) {
        if (retry) spdlog::warn("the run had stopped ({}); continuing with {} rounds left", state.stop_reason, options.rounds - state.round);
        state.phase = search::Phase::next;
        state.verdict.reset();
        state.finalists.clear();  // chosen and re-timed again when the search ends
        state.retiming = nullptr;
        state.stop_reason.clear();
        state.stopped_by_proposer = false;
        store.transaction([&] {
          store.clear_retimings();
          store.save_state(state.to_json());
        });
      }
    }
    auto strategy = search::make_strategy(stored_strategy(info), {&task, backend.get()});
    exit_code = run_session(store, task, *backend, *proposer, *strategy, options, {args->json}, transfer);
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(31, setup);
}  // namespace ksearch::cli
