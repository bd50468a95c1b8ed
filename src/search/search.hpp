#pragma once
// The search loop: a resumable state machine over the run store (phases: search/state.hpp),
// driving one Strategy (search/strategy.hpp) and one Proposer.
//
// The loop is asynchronous: it keeps up to the executor's capacity (--parallel x devices locally,
// --max-jobs on Slurm) evaluations in flight; as soon as a round's candidates are back the strategy
// observes it and the freed places are filled with new rounds. Proposer calls run on threads of
// their own (up to --proposer-concurrency write_code calls at once for a proposer that allows it)
// while this thread goes on collecting evaluations; the store is written on this thread only.
// Each transition is persisted (loop state + the strategy's snapshot) before the next begins, and
// each evaluation is committed on its own, so `Search::run` on a reopened store continues exactly
// where a killed process stopped (rounds in flight are evaluated again, or re-attached). Proposer
// requests go through the store's pending_request row, so an asynchronous proposer (agent) can leave
// one unanswered: run() then returns Outcome::waiting. Documented in docs/SEARCH.md.
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluator/evaluator.hpp"
#include "executors/executor.hpp"
#include "proposers/proposer.hpp"
#include "search/state.hpp"
#include "search/strategy.hpp"
#include "store/run_store.hpp"

namespace ksearch::search {

// The loop's own options; a strategy's options are in its StrategySpec.
struct SearchOptions {
  int rounds = 12;         // rounds: proposals of up to `parallel` candidates each
  double minutes = 0;      // wall-clock budget over all sessions of the run; 0 = none
  int parallel = 1;        // candidates in flight per device (local executor), at most per round
  // write_code calls in flight at once for a proposer with concurrent_calls() (others: 1); 0: enough
  // to fill the executor's places, capacity / parallel rounded up.
  int proposer_concurrency = 0;
  bool seed_eval = false;  // evaluate the seed itself first (round 0)
  int finalists = 4;       // best candidates re-timed against the seed when the search ends (0: none)
  int retime_rounds = 5;   // interleaved rounds of that re-timing (at least 2 for an interval)
  nlohmann::json to_json() const;
  static SearchOptions from_json(const nlohmann::json& j);
};

// What the live view shows.
struct Progress {
  std::string phase;
  int round = 0, rounds = 0, cycle = 0;
  std::string strategy_status;  // Strategy::status()
  int64_t evaluations = 0;
  double elapsed_seconds = 0;
  std::string node_id, action;
  double best_speedup = 0;
  int64_t best_candidate = 0;
};

struct SearchEvent {
  using Kind = EventKind;
  Kind kind = Kind::message;
  std::string text;
  int64_t candidate = 0;
  std::string status;
  double speedup = 0;
  bool reused = false;
};

using SearchObserver = std::function<void(const SearchEvent&, const Progress&)>;

// The run's outcome, from the store (also for `ksearch show` and --json).
struct RunSummary {
  std::string task, backend, run_dir, phase, stop_reason, proposer, strategy;
  int rounds = 0, rounds_budget = 0, cycles = 0;
  int64_t evaluations = 0, candidates = 0;
  double elapsed_seconds = 0;
  bool has_best = false;  // a candidate passed the visible workloads (and the held-out check, once done)
  int64_t best_candidate = 0;
  double best_speedup = 0, best_median_ms = 0, best_roofline = 0;
  std::optional<bool> held_out_passed;  // empty until the final verdict, or without held-out workloads
  double held_out_speedup = 0;
  // The finalists' re-timing (RetimeResult::to_json(), null without one) and the best's interval.
  nlohmann::json retiming;
  std::optional<RatioInterval> best_retimed;
  // What a user should read of it: the best's interval, then ties, noise and failures, one line each.
  std::vector<std::string> retime_lines;
  nlohmann::json to_json() const;
  // The best's timing as a user reads it: "2.31x vs seed (0.0421 ms, roofline 38.0%)", or, where the backend only
  // checks correctness here (metal on Linux), "correct, not timed on this host" instead of a speedup of 0.
  std::string best_timing_text() const;
};
RunSummary summarize(const store::RunStore& store);

// "c<id>", or "seed" for 0.
std::string candidate_name(int64_t id);
// The relative spread of an evaluated candidate's timing (EvalReport::spread()); 0 when untimed.
double timing_spread(const store::Candidate& c);
// How an evaluated candidate is shown to a proposer.
proposers::Feedback feedback_of(const store::Candidate& c);

class Search : private Context {
 public:
  enum class Outcome { finished, waiting };

  // Evaluations go to the executor `executor` names (executors/; by default the local one on the
  // backend's default device); throws Error when it cannot be made. `transfer`'s kernels are
  // evaluated with the seed in round 0 (implying seed_eval).
  Search(store::RunStore& store, const tasks::Task& task, backends::Backend& backend, proposers::Proposer& proposer, Strategy& strategy,
         SearchOptions options, SearchObserver observer = nullptr, const executors::ExecutorSpec& executor = {}, Transfer transfer = {});
  // Runs until the budget is spent or the strategy stops (finished: final verdict done), or until
  // the proposer leaves a request pending (waiting).
  Outcome run();

  static constexpr int kProposerRetries = 2;
  // write_code calls this search keeps in flight at once (SearchOptions::proposer_concurrency resolved).
  int proposer_concurrency() const { return proposer_slots_; }

 private:
  // Phases; each returns false when the run must stop and wait for the proposer.
  bool do_init();
  bool do_search();  // next, code and evaluate: the asynchronous loop
  bool do_finish();
  void do_retime();
  void do_final();

  // Context
  const proposers::TaskBrief& brief() const override { return brief_; }
  const store::RunStore& store() const override { return store_; }
  int round() const override { return state_.round; }
  int rounds() const override { return options_.rounds; }
  bool budget_spent() const override;
  std::optional<Best> best() const override { return state_.best; }
  std::vector<PendingRound> pending() const override;
  bool can_plan() const override { return proposer_.planner() != nullptr; }
  std::optional<proposers::InitializeReply> ask(const proposers::InitializeRequest& request) override;
  std::optional<proposers::ProposeReply> ask(const proposers::ProposeRequest& request) override;
  std::optional<proposers::RefineReply> ask(const proposers::RefineRequest& request) override;
  void notify(EventKind kind, const std::string& text) override { notify(SearchEvent{kind, text}); }
  void checkpoint(const std::string& reason) override { save(reason); }
  const Transfer& transfer() const override { return transfer_; }

  // One proposer request; `invoke` calls the proposer (see search.cpp).
  template <class Reply, class Request, class Call>
  std::optional<Reply> ask(proposers::Role role, const Request& request, Call invoke);
  template <class Call>
  auto while_evaluating(Call call);  // runs a proposer call on its own thread, collecting evaluations meanwhile
  proposers::Planner& planner() const;
  // The calls of an answered request (a proposer without model calls: one row, request and reply).
  void record_answer(int round, proposers::Role role, const nlohmann::json& request, const std::vector<proposers::CallInfo>& calls,
                     const nlohmann::json& reply, double seconds);
  // A failed request's calls (or one row with the error), and a message saying it failed.
  void record_failure(int round, proposers::Role role, const nlohmann::json& request, const std::exception& error, int attempt,
                      double seconds);

  double elapsed() const;
  bool time_budget_reached() const;
  void save(const std::string& reason = "");     // persist() in a transaction of its own
  void persist(const std::string& reason = "");  // state + strategy snapshot (+ its tree under `reason`)
  void notify(SearchEvent event);
  Progress progress() const;
  bool write_round(RoundBeingWritten round);  // one call at a time: the proposer writes it now; false: left pending
  void start_call(const RoundBeingWritten& round, int attempt);  // concurrent calls: on a worker thread
  void collect_calls();  // concurrent calls that returned: their rounds stored and handed out, failures retried
  // Stores a written round (its candidates, the state, and `record` the call rows, in one
  // transaction) and hands it to the executor.
  void commit_round(RoundBeingWritten round, const proposers::CodeReply& reply, const std::function<void(int)>& record);
  bool drop_round(const RoundBeingWritten& round);  // the proposer can answer no more: the round is not written
  void await_progress();  // until an evaluation or a call comes back (at most about a second)
  int being_written() const;  // candidates asked for by the rounds being written
  void dispatch(const RoundInFlight& round);  // hands its candidates to the executor (or reuses, or waits for a copy)
  void submit_queued();                       // as many queued candidates as the executor takes
  void poll(std::chrono::milliseconds timeout);  // collects and commits what came back (or cancels at the time budget)
  void hand_out_waiting();  // to the executor, unless a copy of the source is evaluated (reused) or in flight
  void cancel_in_flight();  // the time budget: what has not come back is recorded as not run
  void observe_completed();  // rounds whose candidates are all back, to the strategy
  int unfinished() const { return int(evaluating_.size() + waiting_.size()); }  // candidates in flight not back yet
  void record(const executors::Completion& done);
  void record_not_run(int64_t candidate);  // a candidate the time budget left unevaluated

  store::RunStore& store_;
  const tasks::Task& task_;
  backends::Backend& backend_;
  proposers::Proposer& proposer_;
  Strategy& strategy_;
  SearchOptions options_;
  SearchObserver observer_;
  std::unique_ptr<executors::Executor> executor_;
  proposers::TaskBrief brief_;
  Transfer transfer_;
  LoopState state_;
  std::chrono::steady_clock::time_point session_start_;
  // This session's view of the rounds in flight (rebuilt from state_.in_flight on resume).
  std::deque<executors::Submission> queue_;  // waiting for room in the executor
  std::map<int64_t, std::string> evaluating_;  // candidate -> source hash: queued or with the executor
  std::vector<int64_t> waiting_;             // not handed out yet: a copy of the source is in flight, its result will be reused
  bool idle_ = false;                        // the strategy had nothing to propose until a round is observed
  // write_code calls in flight on worker threads (a proposer with concurrent_calls()).
  struct WriteCall {
    RoundBeingWritten round;
    int attempt = 0;
    std::chrono::steady_clock::time_point start;
    std::future<std::optional<proposers::Answer<proposers::CodeReply>>> answer;
  };
  std::vector<WriteCall> calls_;
  int proposer_slots_ = 1;
};

}  // namespace ksearch::search
