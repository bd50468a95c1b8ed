// The annealing strategy driven step by step with synthetic costs (no evaluation): the acceptance
// rule, knob exploration without repeats, temperature-dependent acceptance, determinism with a
// seed, exact continuation after snapshot/restore, and clear errors for bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "helpers.hpp"
#include "search/strategy.hpp"
#include "strategies/annealing/annealing.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

using namespace ksearch;
using nlohmann::json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A Context over a real run store whose candidates get synthetic timings.
class FakeContext : public search::Context {
 public:
  FakeContext(const std::string& name, int rounds) : dir_(test::fresh_run_dir(name)), rounds_(rounds) {
    store::RunInfo info;
    info.task_name = "tiny_exp";
    info.backend = "cpu";
    store_.emplace(store::RunStore::create(dir_, info));
    brief_.seed_source = "// seed";
  }
  ~FakeContext() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  const proposers::TaskBrief& brief() const override { return brief_; }
  const store::RunStore& store() const override { return *store_; }
  int round() const override { return round_; }
  int rounds() const override { return rounds_; }
  bool budget_spent() const override { return round_ >= rounds_; }
  std::optional<search::Best> best() const override { return std::nullopt; }
  std::vector<search::PendingRound> pending() const override { return in_flight; }
  bool can_plan() const override { return false; }
  std::optional<proposers::InitializeReply> ask(const proposers::InitializeRequest&) override { throw Error("no planner"); }
  std::optional<proposers::ProposeReply> ask(const proposers::ProposeRequest&) override { throw Error("no planner"); }
  std::optional<proposers::RefineReply> ask(const proposers::RefineRequest&) override { throw Error("no planner"); }
  void notify(search::EventKind, const std::string&) override {}
  void checkpoint(const std::string&) override {}

  std::vector<search::PendingRound> in_flight;  // what pending() reports

  // One round: the planned configuration "evaluated" at `cost_ms` (infinite: it failed).
  search::Observation evaluate(const search::Plan& plan, double cost_ms) {
    const proposers::CodeRequest& request = plan.request;
    store::Candidate c;
    c.round = ++round_;
    c.source = "// " + request.node_payload.dump();
    c.source_hash = c.source;
    c.payload = request.node_payload;
    const int64_t id = store_->add_candidate(c);
    const bool passed = !std::isinf(cost_ms);
    store_->record_evaluation(id, json::object(), passed ? "passed" : "incorrect", passed ? 1.0 / cost_ms : 0, passed ? cost_ms : 0, 0, 0, 0);
    return {{*store_->candidate(id)}, false, false, round_, plan.cycle, request.node_id, request.node_payload};
  }

 private:
  std::filesystem::path dir_;
  std::optional<store::RunStore> store_;
  proposers::TaskBrief brief_;
  int round_ = 0, rounds_;
};

struct Annealing : ::testing::Test {
  Task task = load_task(test::tiny_task_file());
  std::unique_ptr<Backend> backend = make_backend("cpu");

  std::unique_ptr<search::Strategy> make(const json& config) { return search::make_strategy({"annealing", config}, {&task, backend.get()}); }

  // The tiny task's knobs: PASSES in [1, 2, 4, 8] (fewer is faster), CHUNK in [1024, 4096, 16384].
  static double cost(const json& config) {
    const auto& k = config["knobs"];
    return k["PASSES"].get<double>() * (1 + 0.1 * std::abs(std::log2(k["CHUNK"].get<double>() / 4096)));
  }

  // Runs `steps` steps (or until the strategy stops) and returns the proposed configurations.
  std::vector<json> drive(search::Strategy& s, FakeContext& ctx, int steps) {
    std::vector<json> proposed;
    for (int i = 0; i < steps; ++i) {
      const auto plan = s.next(ctx);
      if (plan.kind != search::Plan::Kind::code) break;
      proposed.push_back(plan.request.node_payload);
      s.observe(ctx, ctx.evaluate(plan, cost(plan.request.node_payload)));
    }
    return proposed;
  }
};

}  // namespace

TEST(AnnealingRule, AcceptanceProbability) {
  EXPECT_EQ(annealing::acceptance_probability(2.0, 1.0, 0.01), 1.0);   // better: always
  EXPECT_EQ(annealing::acceptance_probability(kInf, 5.0, 0.01), 1.0);  // from an invalid start: always
  EXPECT_EQ(annealing::acceptance_probability(1.0, kInf, 100), 0.0);   // to an invalid one: never
  EXPECT_NEAR(annealing::acceptance_probability(1.0, 1.1, 1.0), std::exp(-0.1), 1e-12);   // 10% worse, hot
  EXPECT_LT(annealing::acceptance_probability(1.0, 1.1, 0.001), 1e-40);                    // 10% worse, cold
  const annealing::Options o;
  EXPECT_DOUBLE_EQ(annealing::temperature(o, 0, 10), o.t_start);
  EXPECT_NEAR(annealing::temperature(o, 9, 10), o.t_end, 1e-12);
  EXPECT_GT(annealing::temperature(o, 3, 10), annealing::temperature(o, 4, 10));
}

TEST_F(Annealing, ExploresEveryConfigurationOnceThenStops) {
  auto s = make({{"seed", 3}});
  FakeContext ctx("anneal-explore", 20);
  ASSERT_TRUE(s->init(ctx));
  const auto proposed = drive(*s, ctx, 20);
  ASSERT_EQ(proposed.size(), 12u);  // 4 x 3 knob values, each once
  std::set<std::string> seen;
  for (const auto& p : proposed) {
    EXPECT_EQ(p["family"], "seed_knobs");
    EXPECT_TRUE(seen.insert(p["knobs"].dump()).second) << "proposed twice: " << p.dump();
  }
  const auto stop = s->next(ctx);
  EXPECT_EQ(stop.kind, search::Plan::Kind::stop);
  EXPECT_NE(stop.stop_reason.find("exhausted"), std::string::npos);
}

TEST_F(Annealing, NeighboursMoveOneKnobToAnAdjacentValue) {
  auto s = make({{"seed", 5}, {"t_start", 1e-6}, {"t_end", 1e-6}});  // cold: only improvements are accepted
  FakeContext ctx("anneal-neighbours", 6);
  const auto proposed = drive(*s, ctx, 3);
  ASSERT_EQ(proposed.size(), 3u);
  const json current = s->snapshot()["current"];
  const auto plan = s->next(ctx);
  ASSERT_EQ(plan.kind, search::Plan::Kind::code);
  int moved = 0;
  for (const auto& [knob, value] : plan.request.node_payload["knobs"].items()) moved += value != current["knobs"][knob];
  EXPECT_EQ(moved, 1) << current.dump() << " -> " << plan.request.node_payload.dump();
}

TEST_F(Annealing, AcceptsAWorseConfigurationOnlyWhenHot) {
  for (const double t : {1e6, 1e-6}) {
    auto s = make({{"seed", 11}, {"t_start", t}, {"t_end", t}});
    FakeContext ctx("anneal-temp", 10);
    auto first = s->next(ctx);
    s->observe(ctx, ctx.evaluate(first, 1.0));
    auto second = s->next(ctx);
    s->observe(ctx, ctx.evaluate(second, 1.5));  // 50% slower
    const json current = s->snapshot()["current"];
    EXPECT_EQ(current, t > 1 ? second.request.node_payload : first.request.node_payload) << "T=" << t;
    auto third = s->next(ctx);
    s->observe(ctx, ctx.evaluate(third, kInf));  // a failing candidate is never accepted
    EXPECT_EQ(s->snapshot()["current"], current) << "T=" << t;
  }
}

TEST_F(Annealing, DeterministicWithASeed) {
  auto run = [&](uint64_t seed) {
    auto s = make({{"seed", seed}});
    FakeContext ctx("anneal-seed", 8);
    return drive(*s, ctx, 8);
  };
  const auto a = run(7), b = run(7), c = run(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(Annealing, RestoredSnapshotContinuesExactly) {
  std::vector<json> whole;
  {
    auto s = make({{"seed", 21}});
    FakeContext ctx("anneal-whole", 8);
    whole = drive(*s, ctx, 8);
  }
  FakeContext ctx("anneal-split", 8);
  auto first = make({{"seed", 21}});
  auto split = drive(*first, ctx, 3);
  const json snapshot = first->snapshot();
  first.reset();
  auto second = make({{"seed", 999}});  // the snapshot's generator state wins over the configured seed
  second->restore(snapshot);
  for (const auto& p : drive(*second, ctx, 5)) split.push_back(p);
  EXPECT_EQ(split, whole);
}

// Rounds in flight at once (the asynchronous loop) evaluate distinct configurations: what is pending
// counts as taken, among the current configuration's neighbours and for a restart alike.
TEST_F(Annealing, ConcurrentRoundsTryDistinctConfigurations) {
  auto s = make({{"seed", 4}});
  FakeContext ctx("anneal-pending", 20);
  const auto first = drive(*s, ctx, 1);  // a current configuration: its neighbours are the next proposals
  ASSERT_EQ(first.size(), 1u);
  std::set<std::string> proposed = {first[0].dump()};
  for (int i = 0; i < 6; ++i) {
    const auto plan = s->next(ctx);
    ASSERT_EQ(plan.kind, search::Plan::Kind::code);
    EXPECT_TRUE(proposed.insert(plan.request.node_payload.dump()).second) << "in flight twice: " << plan.request.node_payload.dump();
    ctx.in_flight.push_back({i + 2, plan.cycle, plan.request.node_id, plan.request.node_payload, 1});
  }
  // The rounds come back out of order; each is observed once, and none is proposed again.
  for (auto it = ctx.in_flight.rbegin(); it != ctx.in_flight.rend(); ++it) {
    search::Plan plan;
    plan.cycle = it->cycle;
    plan.request.node_id = it->node_id;
    plan.request.node_payload = it->node_payload;
    s->observe(ctx, ctx.evaluate(plan, cost(it->node_payload)));
  }
  ctx.in_flight.clear();
  const auto rest = drive(*s, ctx, 20);
  for (const auto& p : rest) EXPECT_TRUE(proposed.insert(p.dump()).second) << "proposed again: " << p.dump();
  EXPECT_EQ(proposed.size(), 12u);  // every configuration of the tiny task's space, once
}

TEST_F(Annealing, BadOptionsAreClearErrors) {
  EXPECT_THROW(make({{"temperature", 1}}), Error);
  EXPECT_THROW(make({{"t_start", 0.01}, {"t_end", 1.0}}), Error);
  EXPECT_THROW(make({{"seed", "seven"}}), Error);
  auto s = make({});
  EXPECT_THROW(s->restore(json{{"step", 1}}), Error);
}
