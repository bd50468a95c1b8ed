#include <gtest/gtest.h>

#include "helpers.hpp"
#include "strategies/world_model/select.hpp"

using namespace ksearch::world_model;
using namespace ksearch::world_model::test;

TEST(Select, GreedyWithoutExploration) {
  WorldModel m = sample_model();
  SelectOptions o;
  o.exploration = 0;
  o.gain_weight = 0;
  m.find("n2")->action->score_0_to_1 = 0.9;
  EXPECT_EQ(*select_node(m, 10, o), "n2");
  m.find("n2")->action->score_0_to_1 = 0.5;  // tie with n3: easier first, then rating
  m.find("n3")->action->difficulty_1_to_5 = 1;
  EXPECT_EQ(*select_node(m, 10, o), "n3");
}

TEST(Select, ObservedGainFavoursTheBestBranch) {
  WorldModel m = sample_model();
  SelectOptions o;
  o.exploration = 0;
  const auto ranked = rank_frontier(m, 10, o);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].node->node_id, "n3");  // its parent n1 is the best solution so far
  EXPECT_DOUBLE_EQ(ranked[0].gain, o.gain_weight);
  EXPECT_DOUBLE_EQ(ranked[1].gain, 0);
}

TEST(Select, AGainWithinTheNoiseEarnsNoGainCredit) {
  WorldModel m = sample_model();
  m.find("n1")->solution->significant = false;  // n1's 2x was within the noise of its parent's timing
  SelectOptions o;
  o.exploration = 0;
  for (const auto& s : rank_frontier(m, 10, o)) EXPECT_DOUBLE_EQ(s.gain, 0) << s.node->node_id;
}

TEST(Select, ExplorationTriesNeglectedBranches) {
  WorldModel m = sample_model();
  m.find("n1")->attempts = 30;  // the n1 branch has had many attempts, n2 none
  SelectOptions o;
  o.exploration = 1.0;
  const auto ranked = rank_frontier(m, 30, o);
  EXPECT_EQ(ranked[0].node->node_id, "n2");
  EXPECT_GT(ranked[0].explore, ranked[1].explore);
  EXPECT_EQ(ranked[1].branch_attempts, 30);
  // Exploration term is c * sqrt(ln(N + 1) / (n + 1)).
  EXPECT_NEAR(ranked[0].explore, std::sqrt(std::log(31.0) / 1), 1e-12);
}

TEST(Select, SkipsTooHardAndOverCap) {
  WorldModel m = sample_model();
  m.find("n2")->too_hard = true;
  m.find("n3")->action->difficulty_1_to_5 = 5;
  EXPECT_FALSE(select_node(m, 1, SelectOptions{}).has_value());
  SelectOptions o;
  o.difficulty_cap = 5;
  EXPECT_EQ(*select_node(m, 1, o), "n3");
}

// Rounds in flight at once: a pending evaluation costs its node `pending_penalty` (a virtual loss)
// and counts as a visit of its branch, so concurrent picks spread over the hypotheses.
TEST(Select, PendingEvaluationsSpreadConcurrentChoices) {
  WorldModel m = sample_model();
  SelectOptions o;
  o.exploration = 0;
  o.gain_weight = 0;
  m.find("n3")->action->score_0_to_1 = 0.7;  // n3 0.7 leads n2 0.5
  EXPECT_EQ(*select_node(m, 10, o), "n3");
  EXPECT_EQ(*select_node(m, 10, o, {{"n3", 1}}), "n2");  // 0.7 - 0.5 < 0.5
  EXPECT_EQ(*select_node(m, 10, o, {{"n3", 1}, {"n2", 1}}), "n3");  // both pending: the leader again
  const auto ranked = rank_frontier(m, 10, o, {{"n3", 1}});
  EXPECT_DOUBLE_EQ(ranked[1].penalty, o.pending_penalty);
  o.pending_penalty = 0;  // without the penalty every concurrent pick is the same node
  EXPECT_EQ(*select_node(m, 10, o, {{"n3", 3}}), "n3");
  // Pending evaluations are visits in the exploration term.
  o.exploration = 1.0;
  const auto explored = rank_frontier(m, 10, o, {{"n2", 3}});
  for (const auto& s : explored)
    if (s.node->node_id == "n2") EXPECT_EQ(s.branch_attempts, 3);
}
