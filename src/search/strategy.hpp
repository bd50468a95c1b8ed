#pragma once
// The interface of a search strategy: what to try next, given what has been evaluated.
//
// The loop (search/search.hpp) owns the run: budget, proposer calls, evaluation, the store, the
// best candidate and the final verdict. A strategy decides, round by round, what the proposer
// should implement next, and learns from each round's evaluated candidates. The loop is
// asynchronous: several rounds may be in flight at once (ctx.pending()), and they come back in any
// order.
//
//   init(ctx)            once, before the first round (may ask the proposer's planning role)
//   next(ctx)  -> Plan   the next round's code request, or stop, or wait (a pending request).
//                        Rounds still pending should make the next one differ (diversity). `stop`
//                        while rounds are pending means "nothing to propose until one of them is
//                        observed": the loop asks again after the next observation, and ends the
//                        search only on a stop with nothing pending
//   observe(ctx, obs)    one round's evaluated candidates, once all of them are back (also the
//                        seed's own evaluation); from then on the round is no longer pending
//   finish(ctx)          once, when the budget is spent, before the verdict
//   snapshot / restore   the strategy's whole state as JSON, stored with the loop's state after
//                        every step, so that a killed search resumes exactly
//
// Resumability contract: the loop saves snapshot() after init, after every next() that returns
// code, and after every observe(); a strategy may save more often with ctx.checkpoint(). A step
// that returned `wait` (or was killed) is called again after restore(): from the same snapshot it
// must reach the same decision, so randomness lives in the snapshot (e.g. a seeded generator).
// Rounds pending at a kill are evaluated after `resume` and observed then.
// Strategies register a factory by name (KSEARCH_REGISTER_STRATEGY); `ksearch run --strategy NAME`.
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proposers/proposer.hpp"
#include "store/run_store.hpp"

namespace ksearch::search {

// The best verified candidate of the run so far.
struct Best {
  int64_t candidate = 0;
  double speedup = 0, median_ms = 0, roofline = 0;
  double spread = 0;  // relative spread of its timing: a later candidate must beat it by more than the noise
};

enum class EventKind { message, cycle_start, round_start, evaluated, cycle_end, final };

// A round in flight: planned by next(), not yet observed.
struct PendingRound {
  int round = 0;  // its number (0: the seed's own evaluation, or a round still being written)
  int cycle = 0;  // the plan's cycle
  std::string node_id;
  nlohmann::json node_payload;
  int evaluations = 0;         // its candidates not back yet (being written: the candidates asked for)
  bool being_written = false;  // the proposer is still writing its code (several calls may be in flight)
};

// What a run carries over from a finished run on another backend (`ksearch run --from`,
// docs/TRANSLATE.md); whoever starts the loop hands it over, on every session of the run alike.
struct Transfer {
  // Known kernels besides the seed (the source run's lower-ranked ports): evaluated with the seed
  // in round 0, in this order after it; strategies see them in that round's observation, where
  // their payload says where they come from.
  struct Kernel {
    std::string source, note, proposer;  // proposer: who wrote it, recorded with the candidate (e.g. "port")
    nlohmann::json payload = nlohmann::json::object();
  };
  std::vector<Kernel> kernels;
  nlohmann::json seed_origin;  // where the seed comes from (the best port); null: the task's own seed
  // The source run's hypotheses that still make sense on this backend (world-model nodes, their
  // outcome there under `carried_from`). A strategy with hypotheses adds them once, in init
  // (world_model); one without (annealing) ignores them.
  nlohmann::json hypotheses = nlohmann::json::array();
};

// What the loop offers a strategy.
class Context {
 public:
  virtual ~Context() = default;
  virtual const proposers::TaskBrief& brief() const = 0;
  virtual const store::RunStore& store() const = 0;  // candidates and their evaluations
  virtual int round() const = 0;                     // rounds written (the latest round's number)
  virtual int rounds() const = 0;                    // the round budget
  virtual bool budget_spent() const = 0;
  virtual std::optional<Best> best() const = 0;
  // The rounds planned and not yet observed, oldest first: those handed out, then those being written.
  virtual std::vector<PendingRound> pending() const = 0;
  // Whether the proposer has the planning role (proposers::Planner). Its requests go through the loop: recorded, retried, persisted while pending. nullopt: left pending (wait).
  // Throws after persistent failure (already recorded).
  virtual bool can_plan() const = 0;
  virtual std::optional<proposers::InitializeReply> ask(const proposers::InitializeRequest& request) = 0;
  virtual std::optional<proposers::ProposeReply> ask(const proposers::ProposeRequest& request) = 0;
  virtual std::optional<proposers::RefineReply> ask(const proposers::RefineRequest& request) = 0;
  virtual void notify(EventKind kind, const std::string& text) = 0;  // shown live; messages and cycle ends are stored
  // Saves the loop's state with the strategy's snapshot now; a non-empty reason also stores the
  // strategy's tree() as a snapshot under that reason (shown by `ksearch show` and the report).
  virtual void checkpoint(const std::string& reason) = 0;
  // What the run carries over from another backend's run (empty for most runs).
  virtual const Transfer& transfer() const {
    static const Transfer none;
    return none;
  }
};

// The decision of next().
struct Plan {
  enum class Kind { code, stop, wait } kind = Kind::wait;
  // code: what to implement. The loop fills task, count and best_speedup.
  proposers::CodeRequest request;
  int cycle = 0;            // the strategy's grouping of rounds (world model: one node's cycle), stored with candidates
  std::string stop_reason;  // stop: why the search space is exhausted

  static Plan code(proposers::CodeRequest request, int cycle) { return {Kind::code, std::move(request), cycle, {}}; }
  static Plan stop(std::string reason) { return {Kind::stop, {}, 0, std::move(reason)}; }
  static Plan wait() { return {}; }
};

// One round's outcome.
struct Observation {
  std::vector<store::Candidate> candidates;  // evaluated, in the order the proposer returned them
  bool exhausted = false;                    // the proposer has nothing more to try for this request
  bool seed = false;                         // the seed's own evaluation (round 0, --seed-eval)
  int round = 0, cycle = 0;                  // the round's number and its plan's cycle
  std::string node_id;                       // what its plan implemented (CodeRequest::node_id, node_payload)
  nlohmann::json node_payload;
};

// A candidate's cost for minimizing strategies: its mean median time; infinite unless it passed.
inline double cost_of(const store::Candidate& c) {
  return c.status == "passed" && c.median_ms > 0 ? c.median_ms : std::numeric_limits<double>::infinity();
}

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  virtual bool init(Context& ctx) = 0;  // false: waiting for the proposer
  virtual Plan next(Context& ctx) = 0;
  virtual void observe(Context& ctx, const Observation& observation) = 0;
  virtual bool finish(Context& ctx) { return true; }  // false: waiting for the proposer
  virtual nlohmann::json snapshot() const = 0;
  virtual void restore(const nlohmann::json& snapshot) = 0;  // throws Error on a malformed snapshot
  // A view of the strategy's model for reports (the world model's tree); null when it has none.
  virtual nlohmann::json tree() const { return nullptr; }
  // One line for the live view, e.g. "cycle 3 on n4" or "T=0.31".
  virtual std::string status() const { return {}; }
};

// What a factory gets to build a strategy for one run.
struct StrategyEnv {
  const tasks::Task* task = nullptr;
  const backends::Backend* backend = nullptr;
};

// The strategy of a run, by name plus its configuration (stored in the run's config).
struct StrategySpec {
  std::string name = "world_model";
  nlohmann::json config = nlohmann::json::object();
};

// A factory throws Error (clear message) on a bad configuration or a task it cannot search.
using StrategyFactory = std::function<std::unique_ptr<Strategy>(const StrategyEnv&, const nlohmann::json& config)>;
bool register_strategy(const std::string& name, StrategyFactory factory);
std::unique_ptr<Strategy> make_strategy(const StrategySpec& spec, const StrategyEnv& env);  // throws Error
std::vector<std::string> strategy_names();

// Reads a strategy's options from its JSON config: every key must be one `read` knows (the
// callback returns false for an unknown key), so that a misspelt option is an error, not ignored.
void read_options(const std::string& strategy, const nlohmann::json& config,
                  const std::function<bool(const std::string& key, const nlohmann::json& value)>& read);

}  // namespace ksearch::search

#define KSEARCH_REGISTER_STRATEGY(NAME, ID, FACTORY) \
  static const bool ksearch_strategy_registered_##ID = ::ksearch::search::register_strategy(NAME, FACTORY)
