#pragma once
// The search loop: a resumable state machine over the run store.
//
//   init -> select -> code -> evaluate -> (code ... | refine) -> select ... -> final -> done
//
// Each transition is persisted (search state + world-model snapshot) before the next begins, and
// each evaluation is committed on its own, so `Search::run` on a reopened store continues exactly
// where a killed process stopped. Proposer requests go through the store's pending_request row, so
// an asynchronous proposer (agent) can leave one unanswered: run() then returns Outcome::waiting.
// The algorithm is documented in docs/SEARCH.md.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluator/evaluator.hpp"
#include "planner/protocol.hpp"
#include "planner/select.hpp"
#include "planner/world_model.hpp"
#include "proposers/proposer.hpp"
#include "store/run_store.hpp"

namespace ksearch::planner {

struct SearchOptions {
  int rounds = 12;                // code rounds (each evaluates up to `parallel` candidates)
  double minutes = 0;             // wall-clock budget over all sessions of the run; 0 = none
  int parallel = 1;               // candidates per round, compiled concurrently, timed one at a time
  bool seed_eval = false;         // evaluate the seed itself first (round 0)
  int stagnation_window = 5;      // a cycle ends after this many rounds without improvement
  int frontier_min = 1;           // ask the proposer for more hypotheses below this many selectable nodes
  int reask = 2;                  // re-asks with the errors of an invalid edit script
  SelectOptions select;
  nlohmann::json to_json() const;
  static SearchOptions from_json(const nlohmann::json& j);
};

// What the live view shows.
struct Progress {
  std::string phase;
  int round = 0, rounds = 0, cycle = 0;
  int64_t evaluations = 0;
  double elapsed_seconds = 0;
  std::string node_id, action;
  double best_speedup = 0;
  int64_t best_candidate = 0;
};

struct SearchEvent {
  enum class Kind { message, cycle_start, round_start, evaluated, cycle_end, final } kind = Kind::message;
  std::string text;
  int64_t candidate = 0;
  std::string status;
  double speedup = 0;
  bool reused = false;
};

using SearchObserver = std::function<void(const SearchEvent&, const Progress&)>;

// The run's outcome, from the store (also for `ksearch show` and --json).
struct RunSummary {
  std::string task, backend, run_dir, phase, stop_reason, proposer;
  int rounds = 0, rounds_budget = 0, cycles = 0;
  int64_t evaluations = 0, candidates = 0;
  double elapsed_seconds = 0;
  bool has_best = false;  // a candidate passed the visible workloads (and the held-out check, once done)
  int64_t best_candidate = 0;
  double best_speedup = 0, best_median_ms = 0, best_roofline = 0;
  std::optional<bool> held_out_passed;  // empty until the final verdict, or without held-out workloads
  double held_out_speedup = 0;
  nlohmann::json to_json() const;
};
RunSummary summarize(const store::RunStore& store);

class Search {
 public:
  enum class Outcome { finished, waiting };

  Search(store::RunStore& store, const Task& task, Backend& backend, proposers::Proposer& proposer,
         SearchOptions options, SearchObserver observer = nullptr);
  // Runs until the budget is spent or the search space is exhausted (finished: final verdict
  // done), or until the proposer leaves a request pending (waiting).
  Outcome run();

  static constexpr int kProposerRetries = 2;

 private:
  // Phases; each returns false when the run must stop and wait for the proposer.
  bool do_init();
  bool do_select();
  bool do_code();
  void do_evaluate();
  bool do_refine();
  void do_final();

  template <class Reply, class Request, class Method>
  std::optional<Reply> ask(Role role, const Request& request, Method method);

  TaskBrief brief() const;
  bool budget_spent() const;
  double elapsed() const;
  void save(const std::string& reason = "");  // state + world model, one transaction
  void notify(SearchEvent event);
  Progress progress() const;
  void evaluate_round(const std::vector<int64_t>& ids);
  void update_signals();

  store::RunStore& store_;
  const Task& task_;
  Backend& backend_;
  proposers::Proposer& proposer_;
  SearchOptions options_;
  SearchObserver observer_;
  nlohmann::json state_;
  WorldModel model_;
  std::chrono::steady_clock::time_point session_start_;
  double elapsed_before_ = 0;
};

}  // namespace ksearch::planner
