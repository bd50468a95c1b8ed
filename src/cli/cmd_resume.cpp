#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/number_checks.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "search/search.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::cli {
namespace {

struct ResumeArgs {
  std::string dir;
  int rounds = 0;
  double minutes = -1;
  bool json = false;
};

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ResumeArgs>();
  auto* cmd = app.add_subcommand("resume", "Continue a stopped or killed run where it left off");
  cmd->add_option("dir", args->dir, "Run folder")->required();
  cmd->add_option("--rounds", args->rounds, "New total round budget (default: the run's)")->check(kPositive);
  cmd->add_option("--minutes", args->minutes, "New total time budget in minutes (0: none)")->check(kNonNegative);
  cmd->add_flag("--json", args->json, "Print one JSON object at the end (progress goes to stderr)");
  cmd->callback([args, &exit_code] {
    auto store = store::RunStore::open(args->dir, store::RunStore::Access::write);
    auto info = store.info();
    const Task task = load_task(info.task_file);
    if (task.content_hash != info.task_hash)
      spdlog::warn("the task file {} changed since the run started; continuing with the current version", info.task_file);
    auto backend = make_backend(info.backend);
    std::string why;
    if (!backend->available(&why)) throw Error("backend " + info.backend + " is not available here: " + why);
    auto options = search::SearchOptions::from_json(info.config.value("search", nlohmann::json::object()));
    bool changed = false;
    if (args->rounds > 0) options.rounds = args->rounds, changed = true;
    if (args->minutes >= 0) options.minutes = args->minutes, changed = true;
    if (changed) {
      info.config["search"] = options.to_json();
      store.set_config(info.config);
      // A larger budget reopens a finished run: back to the strategy's next step, the verdict is redone at the end.
      if (const auto stored = store.load_state()) {
        auto state = search::LoopState::from_json(*stored);
        if (state.phase == search::Phase::done && options.rounds > state.round) {
          state.phase = search::Phase::next;
          state.verdict.reset();
          state.stop_reason.clear();
          store.save_state(state.to_json());
        }
      }
    }
    auto proposer = proposers::make_proposer(stored_proposer(info), {&task, backend.get(), &store});
    auto strategy = search::make_strategy(stored_strategy(info), {&task, backend.get()});
    exit_code = run_session(store, task, *backend, *proposer, *strategy, options, {args->json});
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(31, setup);
}  // namespace ksearch::cli
