#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "helpers.hpp"

using namespace ksearch::world_model;
using namespace ksearch::world_model::test;

TEST(WorldModel, StatesAreDerived) {
  WorldModel m = sample_model();
  EXPECT_EQ(m.state(*m.find("n0")), NodeState::closed);
  EXPECT_EQ(m.state(*m.find("n1")), NodeState::closed);
  EXPECT_EQ(m.state(*m.find("n2")), NodeState::frontier);  // parent is the root
  EXPECT_EQ(m.state(*m.find("n3")), NodeState::frontier);  // parent closed
  m.nodes.push_back(make_node("n4", "n3"));
  EXPECT_EQ(m.state(*m.find("n4")), NodeState::open);  // parent open: not yet reachable
  Node no_action;
  no_action.node_id = "n5";
  no_action.parent_id = "n0";
  m.nodes.push_back(no_action);
  EXPECT_EQ(m.state(*m.find("n5")), NodeState::open);  // no action: nothing to do
  std::vector<std::string> frontier;
  for (const Node* n : m.frontier()) frontier.push_back(n->node_id);
  EXPECT_EQ(frontier, (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(m.branch_of("n4"), "n1");
  EXPECT_EQ(m.branch_of("n2"), "n2");
}

TEST(WorldModel, JsonRoundTrip) {
  WorldModel m = sample_model();
  m.open_questions = {"vector width?"};
  m.active_leaf_id = "n3";
  m.find("n2")->memory_bandwidth = Impact{7, "low", "one pass"};
  m.find("n2")->payload = {{"family", "f"}, {"knobs", {{"k", 4}}}};
  m.find("n3")->too_hard = true;
  m.signals = {{"round", 3}};
  const auto j = m.to_json();
  EXPECT_EQ(j["decision_tree"]["nodes"][2]["state"], "FRONTIER");
  const WorldModel back = WorldModel::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.find("n2")->memory_bandwidth.rating_0_to_10, 7);
  EXPECT_TRUE(back.find("n3")->too_hard);
  EXPECT_EQ(back.find("n1")->solution->speedup_vs_seed, 2.0);
}

TEST(WorldModel, RejectsMalformedTrees) {
  auto j = sample_model().to_json();
  j["decision_tree"]["nodes"][3]["parent_id"] = "nx";
  EXPECT_THROW(WorldModel::from_json(j), ksearch::Error);
  j = sample_model().to_json();
  j["decision_tree"]["root_id"] = "missing";
  EXPECT_THROW(WorldModel::from_json(j), ksearch::Error);
  j = sample_model().to_json();
  j["decision_tree"]["nodes"][2]["action"]["difficulty_1_to_5"] = 9;
  EXPECT_THROW(WorldModel::from_json(j), ksearch::Error);
  // A cycle between two nodes never reaches the root.
  WorldModel m = sample_model();
  m.find("n2")->parent_id = "n3";
  m.find("n3")->parent_id = "n2";
  EXPECT_FALSE(m.validate().empty());
}

TEST(WorldModel, CompactViewListsFrontier) {
  const std::string view = sample_model().compact_view();
  EXPECT_NE(view.find("n2 [FRONTIER]"), std::string::npos);
  EXPECT_NE(view.find("x2.00 vs seed"), std::string::npos);
}

// Observations keep their spread; a gain the noise explains is recorded as no significant gain.
TEST(Uncertainty, MeasuredGainMustExceedTheCombinedSpread) {
  // 10% spread on both sides: the noise is half their combined spread, about 7%.
  const ksearch::Gain within = ksearch::measured_gain(2.1, 0.10, 2.0, 0.10);
  EXPECT_NEAR(within.noise, 0.5 * std::hypot(0.10, 0.10), 1e-12);
  EXPECT_NEAR(within.factor, 1.05, 1e-12);
  EXPECT_FALSE(within.significant());
  EXPECT_TRUE(ksearch::measured_gain(2.2, 0.10, 2.0, 0.10).significant());
  // An unknown spread (0) takes the other side's; never less than kMinSignificantGain.
  EXPECT_NEAR(ksearch::measured_gain(2.1, 0.10, 2.0, 0).noise, within.noise, 1e-12);
  EXPECT_DOUBLE_EQ(ksearch::measured_gain(1.01, 0, 1.0, 0).noise, ksearch::kMinSignificantGain);
  EXPECT_FALSE(ksearch::measured_gain(1.01, 0, 1.0, 0).significant());
  EXPECT_FALSE(ksearch::measured_gain(0.5, 0.01, 1.0, 0.01).significant());  // a slowdown is no gain
}

TEST(Uncertainty, ACycleWhoseGainIsWithinTheNoiseIsNoLesson) {
  WorldModel m = sample_model();  // n1 solved at 2x; n3 under it
  m.find("n1")->solution->spread = 0.10;
  Solution close = passed(2.06, "c7");
  close.spread = 0.10;
  const ksearch::Gain g = close_cycle(m, *m.find("n3"), {4, 3, 5, 1.5, close});
  EXPECT_FALSE(g.significant());
  const Node& n3 = *m.find("n3");
  ASSERT_TRUE(n3.solution);
  EXPECT_FALSE(n3.solution->significant);
  EXPECT_EQ(n3.solution->candidate_id, "c7");
  EXPECT_EQ(n3.cycles, 1);
  EXPECT_NE(n3.notes.find("no significant gain: x1.03 over the parent is within the timing noise (+-7%)"), std::string::npos) << n3.notes;
  EXPECT_EQ(n3.notes.find("observed x"), std::string::npos) << n3.notes;
  EXPECT_NE(m.compact_view().find("c7 passed x2.06 vs seed (no significant gain over its parent)"), std::string::npos) << m.compact_view();
  // Kept through the JSON form.
  const WorldModel back = WorldModel::from_json(m.to_json());
  EXPECT_FALSE(back.find("n3")->solution->significant);
  EXPECT_DOUBLE_EQ(back.find("n3")->solution->spread, 0.10);
}

TEST(Uncertainty, AGainBeyondTheNoiseIsAnObservedFactor) {
  WorldModel m = sample_model();
  m.find("n1")->solution->spread = 0.02;
  Solution faster = passed(3.0, "c8");
  faster.spread = 0.02;
  const ksearch::Gain g = close_cycle(m, *m.find("n3"), {2, 4, 4, 1.5, faster});
  EXPECT_TRUE(g.significant());
  EXPECT_NEAR(g.factor, 1.5, 1e-12);
  EXPECT_TRUE(m.find("n3")->solution->significant);
  EXPECT_NE(m.find("n3")->notes.find("cycle 2: 4 rounds, 4 attempts, passed; predicted x1.50, observed x1.50 (3.00x vs seed)."),
            std::string::npos)
      << m.find("n3")->notes;
  // Under the root the seed (1x) is the parent.
  Solution small = passed(1.01, "c9");
  small.spread = 0.01;
  EXPECT_FALSE(close_cycle(m, *m.find("n2"), {3, 1, 1, 1.2, small}).significant());
}

TEST(Uncertainty, ACycleTheBudgetCutOffBeforeAnyEvaluationLeavesTheNodeOpen) {
  WorldModel m = sample_model();
  const double score = m.find("n2")->action->score_0_to_1;
  ksearch::world_model::CycleOutcome cut{1, 1, 0, 1.3, std::nullopt, true};
  EXPECT_EQ(close_cycle(m, *m.find("n2"), cut).factor, 0);
  const Node& n2 = *m.find("n2");
  EXPECT_FALSE(n2.too_hard);
  EXPECT_EQ(n2.cycles, 0);
  EXPECT_DOUBLE_EQ(n2.action->score_0_to_1, score);
  EXPECT_NE(n2.notes.find("no candidate evaluated before the search's budget ended; left open"), std::string::npos) << n2.notes;
}

TEST(Uncertainty, ACycleWithoutAPassingCandidateMarksTheNodeTooHard) {
  WorldModel m = sample_model();
  const ksearch::Gain g = close_cycle(m, *m.find("n2"), {1, 2, 2, 1.3, std::nullopt});
  EXPECT_EQ(g.factor, 0);
  EXPECT_TRUE(m.find("n2")->too_hard);
  EXPECT_FALSE(m.find("n2")->solution);
  EXPECT_DOUBLE_EQ(m.find("n2")->action->score_0_to_1, 0.25);
  EXPECT_NE(m.find("n2")->notes.find("nothing passed (too hard)"), std::string::npos);
}
