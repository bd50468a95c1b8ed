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
