#pragma once
// The search loop's state, typed, and its JSON form stored in the run store after every step.
//
//   init -> (next | code | evaluate)* -> finish -> retime -> final -> done
//
// The search itself is asynchronous: rounds (one proposal each) are evaluated while the next ones
// are planned and written. Its phase says what the loop is doing now: `next` the strategy plans a
// round, `code` the proposer writes rounds (`writing`), `evaluate` the loop waits for evaluations;
// all three resume the same loop from `writing` and `in_flight`. `finish` lets the strategy close its work
// once the budget is spent, `retime` re-times the best candidates against the seed in one sitting
// (evaluator/retime), `final` checks the best of them on the held-out workloads.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proposers/protocol.hpp"
#include "search/strategy.hpp"

namespace ksearch::search {

enum class Phase { init, next, code, evaluate, finish, retime, final, done };
std::string phase_name(Phase phase);
Phase parse_phase(const std::string& name);  // throws Error

// The outcome of the final phase.
struct Verdict {
  int64_t candidate = 0;                // the run's result; 0 when none passed
  std::optional<bool> held_out_passed;  // empty without held-out workloads
  double held_out_speedup = 0;
  nlohmann::json checked = nlohmann::json::array();   // held-out evaluations, best first
  nlohmann::json memcheck = nlohmann::json::array();  // memory-checker runs
  std::string note;
};

// A round whose candidates are stored and handed out for evaluation, not yet observed by the strategy.
struct RoundInFlight {
  int round = 0;  // its number (0: the seed's own evaluation)
  int cycle = 0;  // its plan's cycle
  std::string node_id;
  nlohmann::json node_payload;
  std::vector<int64_t> candidates;
  bool exhausted = false;  // the proposer's `exhausted` for it
  bool seed = false;       // the seed's own evaluation (--seed-eval)
};

// A round planned by the strategy whose code the proposer is writing (its call in flight): not
// stored as candidates yet. After a kill it is asked for again, and stored once.
struct RoundBeingWritten {
  int64_t id = 0;  // its number among the rounds planned in this run (LoopState::planned)
  int cycle = 0;   // its plan's cycle
  proposers::CodeRequest request;
};

struct LoopState {
  Phase phase = Phase::init;
  int round = 0;          // rounds written: the latest round's number (a round is one proposal)
  int cycle = 0;          // the latest plan's cycle
  int64_t planned = 0;    // rounds planned (written, being written, or dropped): numbers RoundBeingWritten
  double elapsed_seconds = 0;  // over all sessions
  std::string stop_reason;
  // The run ended with rounds left because its proposer could not go on (an outage, an unusable model or account,
  // its spending cap): a resume tries again with the rounds left.
  bool stopped_by_proposer = false;
  std::vector<RoundBeingWritten> writing;      // rounds the proposer is writing, in the order planned
  std::vector<RoundInFlight> in_flight;        // rounds being evaluated, oldest first
  std::optional<Best> best;
  std::vector<int64_t> finalists;              // chosen when the search ends, re-timed before the verdict
  nlohmann::json retiming;                     // their re-timing's RetimeResult::to_json(); null before or without one
  std::optional<Verdict> verdict;
  std::string strategy;                        // its name
  nlohmann::json strategy_state;               // Strategy::snapshot()

  nlohmann::json to_json() const;
  static LoopState from_json(const nlohmann::json& j);  // throws Error on a malformed state
};

}  // namespace ksearch::search
