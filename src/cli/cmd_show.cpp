#include <fmt/format.h>

#include <functional>

#include "cli/command.hpp"
#include "core/json_text.hpp"
#include "proposers/world_model.hpp"
#include "search/search.hpp"
#include "store/run_store.hpp"

namespace ksearch::cli {
namespace {

struct ShowArgs {
  std::string dir;
  bool calls = false, json = false;
};

void print_tree(const world_model::WorldModel& m) {
  std::function<void(const std::string&, int)> walk = [&](const std::string& id, int depth) {
    const world_model::Node* n = m.find(id);
    if (!n) return;
    std::string line = fmt::format("{}{} [{}{}]", std::string(size_t(depth) * 2, ' '), n->node_id, state_name(m.state(*n)),
                                   n->too_hard ? ", too hard" : "");
    line += n->action ? " " + n->action->title : " " + n->choice;
    if (n->action && !n->solution) line += fmt::format("  (score {:.2f}, difficulty {})", n->action->score_0_to_1, n->action->difficulty_1_to_5);
    if (n->solution) line += fmt::format("  -> {} {} {:.2f}x", n->solution->candidate_id, n->solution->status, n->solution->speedup_vs_seed);
    if (n->carried_from) line += "  [from " + n->carried_from->describe() + "]";
    fmt::print("{}\n", line);
    for (const auto* c : m.children(id)) walk(c->node_id, depth + 1);
  };
  walk(m.root_id, 1);
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ShowArgs>();
  auto* cmd = app.add_subcommand("show", "Summarize a run: best candidate, rounds, world-model tree, candidates");
  cmd->add_option("dir", args->dir, "Run folder")->required();
  cmd->add_flag("--calls", args->calls, "Also list the proposer calls");
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  cmd->callback([args, &exit_code] {
    const auto store = store::RunStore::open(args->dir);
    const auto s = search::summarize(store);
    exit_code = s.has_best && s.held_out_passed.value_or(true) ? kExitOk : kExitCandidateFailed;
    if (args->json) {
      auto j = s.to_json();
      if (auto m = store.latest_world_model()) j["world_model"] = *m;
      fmt::print("{}\n", json_text(j, 2));
      return;
    }
    fmt::print("run {}\ntask {} on {}, strategy {}, proposer {}\nphase {}{}; {} of {} rounds, {} cycles, {} evaluations, {:.0f}s\n",
               s.run_dir, s.task, s.backend, s.strategy, s.proposer, s.phase, s.stop_reason.empty() ? "" : " (" + s.stop_reason + ")", s.rounds,
               s.rounds_budget, s.cycles, s.evaluations, s.elapsed_seconds);
    if (s.has_best)
      fmt::print("best: c{} {}, held-out {}\n", s.best_candidate, s.best_timing_text(),
                 s.held_out_passed ? (*s.held_out_passed ? "passed" : "FAILED") : "not checked yet");
    else
      fmt::print("best: none\n");
    for (const auto& line : s.retime_lines) fmt::print("{}\n", line);
    if (auto m = store.latest_world_model()) {
      fmt::print("\nworld model:\n");
      print_tree(world_model::WorldModel::from_json(*m));
    }
    fmt::print("\n{:>5} {:>5} {:<6} {:<14} {:>9} {:>10}  {}\n", "id", "round", "node", "status", "vs_seed", "median_ms", "note");
    for (const auto& c : store.candidates())
      fmt::print("{:>5} {:>5} {:<6} {:<14} {:>8.2f}x {:>10.4f}  {}{}\n", "c" + std::to_string(c.id), c.round, c.node_id, c.status,
                 c.speedup_vs_seed, c.median_ms, c.note, c.reused_from ? fmt::format(" (= c{})", c.reused_from) : "");
    if (args->calls) {
      fmt::print("\nproposer calls:\n");
      int64_t in = 0, out = 0;
      double usd = 0;
      const auto calls = store.calls();
      for (const auto& c : calls) {
        fmt::print("{:>4} round {:>3} {:<10} {:<12} {:>6}+{:<6} tokens ${:.4f} {:.1f}s {}{}\n", c.id, c.round, c.role, c.proposer,
                   c.input_tokens, c.output_tokens, c.cost_usd, c.seconds, c.model, c.error.empty() ? "" : " ERROR: " + c.error);
        fmt::print("--- prompt ---\n{}\n--- response ---\n{}\n\n", c.prompt, c.response);
        in += c.input_tokens, out += c.output_tokens, usd += c.cost_usd;
      }
      fmt::print("total: {} calls, {}+{} tokens, ${:.4f}\n", calls.size(), in, out, usd);
    }
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(32, setup);
}  // namespace ksearch::cli
