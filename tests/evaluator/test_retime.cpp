// Re-timing of finalists (evaluator/retime): the interleaved order, the statistics drawn from the
// rounds (ratios to the seed of the same round, intervals, ties, noise, failures) and a real
// re-timing on the cpu backend that skips what is already measured.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "evaluator/retime.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::RetimeEntry;
using ksearch::evaluator::RetimeMeasurement;
using ksearch::evaluator::RetimeResult;
using ksearch::evaluator::WorkloadResult;
using ksearch::evaluator::WorkloadSet;
using ksearch::evaluator::analyze_retiming;
using ksearch::evaluator::kNoisyWidthRatio;
using ksearch::evaluator::retime;
using ksearch::evaluator::retime_order;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

using namespace ksearch;

namespace {

// A passing report with one timing median per workload.
EvalReport timed(std::map<std::string, double> medians) {
  EvalReport r;
  r.status = Status::passed;
  for (const auto& [name, ms] : medians) {
    WorkloadResult w;
    w.name = name;
    w.status = Status::passed;
    w.ran = true;
    w.timing = summarize({ms, ms, ms});
    r.workloads.push_back(w);
  }
  return r;
}

EvalReport failed(const std::string& message) {
  EvalReport r;
  r.status = Status::wrong_answer;
  r.message = message;
  return r;
}

}  // namespace

TEST(Retime, EachRoundRotatesTheOrder) {
  EXPECT_EQ(retime_order(3, 0), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(retime_order(3, 1), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(retime_order(3, 4), (std::vector<size_t>{1, 2, 0}));
  // Over as many rounds as entries, every entry takes every position once.
  for (size_t position = 0; position < 3; ++position) {
    std::set<size_t> seen;
    for (int r = 0; r < 3; ++r) seen.insert(retime_order(3, r)[position]);
    EXPECT_EQ(seen.size(), 3u);
  }
}

TEST(Retime, SpeedupsAreRatiosToTheSeedOfTheSameRound) {
  // The machine slows down by 2x from round to round (drift); candidate 7 is always twice as fast as
  // the seed, candidate 9 1.5x on one workload and 3x on the other: drift cancels out.
  std::vector<RetimeMeasurement> m;
  for (int r = 0; r < 4; ++r) {
    const double drift = 1 << r;
    m.push_back({r, 0, timed({{"a", 2 * drift}, {"b", 6 * drift}})});
    m.push_back({r, 7, timed({{"a", 1 * drift}, {"b", 3 * drift}})});
    m.push_back({r, 9, timed({{"a", 2 * drift / 1.5}, {"b", 2 * drift}})});
  }
  const RetimeResult result = analyze_retiming(m);
  EXPECT_EQ(result.rounds, 4);
  ASSERT_EQ(result.candidates.size(), 2u);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->id, 9);  // sqrt(1.5 * 3) = 2.12 > 2
  EXPECT_NEAR(result.best()->speedup.estimate, std::sqrt(4.5), 1e-9);
  EXPECT_NEAR(result.best()->speedup.low, result.best()->speedup.high, 1e-9);  // no noise left after the ratios
  ASSERT_EQ(result.best()->workloads.size(), 2u);
  EXPECT_NEAR(result.best()->workloads[0].speedup.estimate, 1.5, 1e-9);
  EXPECT_NEAR(result.candidates[1].speedup.estimate, 2.0, 1e-9);
  EXPECT_FALSE(result.tied);  // two exact, different values
  EXPECT_FALSE(result.noisy);
  // The JSON form round-trips.
  const RetimeResult back = RetimeResult::from_json(result.to_json());
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.best()->id, 9);
  EXPECT_DOUBLE_EQ(back.best()->speedup.estimate, result.best()->speedup.estimate);
  EXPECT_EQ(back.best()->speedup.samples, 4);
}

TEST(Retime, OverlappingIntervalsAreATieAndWideOnesNoise) {
  // Two candidates around 2x whose per-round ratios scatter by +-25%: tied, and too noisy to decide.
  const std::vector<double> a = {1.6, 2.5, 2.0, 1.7, 2.4}, b = {2.4, 1.6, 1.9, 2.3, 1.8};
  std::vector<RetimeMeasurement> m;
  for (int r = 0; r < 5; ++r) {
    m.push_back({r, 0, timed({{"w", 10}})});
    m.push_back({r, 1, timed({{"w", 10 / a[size_t(r)]}})});
    m.push_back({r, 2, timed({{"w", 10 / b[size_t(r)]}})});
  }
  const RetimeResult result = analyze_retiming(m);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_TRUE(result.tied);
  EXPECT_TRUE(result.noisy);
  EXPECT_GT(result.best()->speedup.width_ratio(), kNoisyWidthRatio);
}

TEST(Retime, AFailureInAnyRoundRemovesTheCandidateAndSeedFailuresVoidTheirRound) {
  std::vector<RetimeMeasurement> m;
  for (int r = 0; r < 3; ++r) {
    m.push_back({r, 0, r == 1 ? failed("seed flaked") : timed({{"w", 4}})});
    m.push_back({r, 1, r == 2 ? failed("trial 2: wrong answer") : timed({{"w", 1}})});  // 4x, but not always right
    m.push_back({r, 2, timed({{"w", 2}})});
  }
  const RetimeResult result = analyze_retiming(m);
  EXPECT_EQ(result.rounds, 2);  // round 2 (index 1) has no seed timing to compare with
  EXPECT_EQ(result.seed_message, "seed flaked");
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.best()->id, 2);
  EXPECT_EQ(result.best()->speedup.samples, 2);
  EXPECT_FALSE(result.candidates[1].passed);
  EXPECT_EQ(result.candidates[1].message, "round 3: trial 2: wrong answer");
  EXPECT_FALSE(result.tied);  // the failed one is no contender
}

TEST(Retime, ReTimesOnTheCpuBackendSkippingWhatIsMeasured) {
  const Task task = resolve_task(std::string(KSEARCH_TEST_DATA) + "/tasks/tiny_softmax");
  auto backend = make_backend("cpu");
  const std::string seed = read_file(task.entry("cpu").seed);
  EvalOptions o;
  o.workloads = WorkloadSet::visible;
  o.target_seconds = 0.02;
  o.max_reps = 8;
  // The same kernel twice under different ids: both pass, neither is far from the seed.
  const std::vector<RetimeEntry> entries = {{0, seed}, {5, seed}};
  std::vector<RetimeMeasurement> taken;
  retime(task, *backend, o, entries, 3, [](int round, int64_t id) { return round == 0 && id == 5; },  // stored before a restart
         [&](const RetimeMeasurement& m) { taken.push_back(m); });
  ASSERT_EQ(taken.size(), 5u);
  std::vector<std::pair<int, int64_t>> order;
  for (const auto& m : taken) {
    order.emplace_back(m.round, m.id);
    EXPECT_EQ(m.report.status, Status::passed) << m.report.message;
    EXPECT_FALSE(m.report.workloads.empty());
    for (const auto& w : m.report.workloads) EXPECT_FALSE(w.held_out);
    EXPECT_EQ(m.report.speedup_vs_seed, 0);  // no cached seed timing: the seed is measured beside it
  }
  EXPECT_EQ(order, (std::vector<std::pair<int, int64_t>>{{0, 0}, {1, 5}, {1, 0}, {2, 0}, {2, 5}}));
  const RetimeResult result = analyze_retiming(taken);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(result.best()->speedup.samples, 2);  // c5 of the first round was stored before, not taken here
  EXPECT_GT(result.best()->speedup.estimate, 0.3);
  EXPECT_LT(result.best()->speedup.estimate, 3.0);
}
