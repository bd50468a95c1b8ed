#pragma once
// evaluator/retime: several candidates that passed, timed again in one sitting, interleaved, with a
// confidence interval on each one's speedup over the seed (docs/EVALUATION.md, "Re-timing").
//
// One evaluation is one draw from a noisy machine (other processes, frequency scaling, drift): a
// search that keeps its best from single evaluations keeps the luckiest. Here the seed and every
// candidate are evaluated once per round, in an order rotated each round (A B C, B C A, C A B, ...)
// so that drift over the sitting hits all alike; a candidate's speedup in a round is its ratio to
// the seed's time measured in that same round, and its interval comes from the spread over rounds.
// Every round is a full evaluation (fresh inputs, checks, the same timing path as the search), so
// the same code serves every backend, and a candidate that fails in any round is no finalist.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.hpp"
#include "evaluator/evaluator.hpp"

namespace ksearch::evaluator {

// An entry to re-time; by convention id 0 is the seed, the reference of every ratio.
struct RetimeEntry {
  int64_t id = 0;
  std::string source;
};

// One evaluation of the re-timing.
struct RetimeMeasurement {
  int round = 0;
  int64_t id = 0;
  EvalReport report;
};

// The order in which round `round` visits `count` entries: each round rotated by one.
std::vector<size_t> retime_order(size_t count, int round);

// Evaluates every entry `rounds` times, interleaved, with `options` (its seed comparison is off:
// the seed is one of the entries). `measured(round, id)` says a measurement is already stored (a
// resumed re-timing skips it); `record` gets each new one as soon as it is taken.
void retime(const tasks::Task& task, backends::Backend& backend, EvalOptions options, const std::vector<RetimeEntry>& entries, int rounds,
            const std::function<bool(int round, int64_t id)>& measured,
            const std::function<void(const RetimeMeasurement&)>& record);

struct RetimedWorkload {
  std::string name;
  RatioInterval speedup;  // over the rounds
};

struct RetimedCandidate {
  int64_t id = 0;
  bool passed = true;   // in every round it was measured
  std::string message;  // the first failure
  RatioInterval speedup;  // per round the geometric mean over workloads of seed_ms / ms; interval over rounds
  std::vector<RetimedWorkload> workloads;
};

// The decision drawn from a re-timing.
struct RetimeResult {
  int rounds = 0;  // rounds in which the seed passed (the ones usable)
  double confidence = 0.95;
  std::string seed_message;  // why the seed failed, if it did in some round
  std::vector<RetimedCandidate> candidates;  // passing ones by estimate, best first; then the failed ones
  bool tied = false;   // the intervals of the top two overlap: the order between them is not significant
  bool noisy = false;  // the best's interval is wider than kNoisyWidthRatio: too much spread to decide
  const RetimedCandidate* best() const;
  nlohmann::json to_json() const;
  static RetimeResult from_json(const nlohmann::json& j);
};

// high / low of the best's interval above which the machine is too noisy to decide (about +-10%).
inline constexpr double kNoisyWidthRatio = 1.2;

RetimeResult analyze_retiming(const std::vector<RetimeMeasurement>& measurements, double confidence = 0.95);

}  // namespace ksearch::evaluator
