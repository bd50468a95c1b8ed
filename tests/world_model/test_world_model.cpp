#include <gtest/gtest.h>

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
