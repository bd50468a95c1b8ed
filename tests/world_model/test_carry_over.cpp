// Hypotheses carried over from another backend's tree (`ksearch run --from`): which are kept, how
// they hang in the new tree, and that their evidence there is never a solution here.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "helpers.hpp"
#include "strategies/world_model/select.hpp"

using namespace ksearch::world_model;
using namespace ksearch::world_model::test;

namespace {

// A cuda tree: n1 (tensor cores, dropped) with child n4 (kept: re-attached to the root); n2 solved
// at 3x with child n3 (too hard there); n5 without an action (a grouping node) above n6.
WorldModel cuda_tree() {
  WorldModel m = sample_model();
  m.find("n1")->action->title = "use tensor cores (mma.sync)";
  m.find("n2")->solution = passed(3.0, "c7");
  m.find("n3")->parent_id = "n2";
  m.find("n3")->too_hard = true;
  m.nodes.push_back(make_node("n4", "n1"));
  Node group;
  group.node_id = "n5";
  group.parent_id = "n0";
  group.choice = "grouping";
  m.nodes.push_back(group);
  m.nodes.push_back(make_node("n6", "n5"));
  m.find("n6")->notes = "cycle 2: observed x1.1";
  return m;
}

std::optional<std::string> no_tensor_cores(const Node& n) {
  if (n.action->title.find("tensor cores") != std::string::npos) return "tensor-cores: none here";
  return std::nullopt;
}

}  // namespace

TEST(CarryOver, KeepsRelevantHypothesesWithTheirEvidenceThere) {
  const CarryOver c = carry_over(cuda_tree(), "cuda", "/runs/cuda", no_tensor_cores);
  ASSERT_EQ(c.dropped.size(), 1u);
  EXPECT_EQ(c.dropped[0].node_id, "n1");
  EXPECT_EQ(c.dropped[0].reason, "tensor-cores: none here");
  std::vector<std::string> ids;
  for (const auto& n : c.kept) ids.push_back(n.node_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"n2", "n3", "n4", "n6"}));
  const Node& n2 = c.kept[0];
  EXPECT_EQ(n2.parent_id, "");  // under the root
  EXPECT_FALSE(n2.solution.has_value());  // measured on cuda: never a solution here
  ASSERT_TRUE(n2.carried_from.has_value());
  EXPECT_EQ(n2.carried_from->backend, "cuda");
  EXPECT_EQ(n2.carried_from->run, "/runs/cuda");
  EXPECT_EQ(n2.carried_from->node_id, "n2");
  EXPECT_EQ(n2.carried_from->candidate, "c7");
  EXPECT_EQ(n2.carried_from->status, "passed");
  EXPECT_DOUBLE_EQ(n2.carried_from->factor_over_parent, 3.0);  // over the root's 1x
  EXPECT_EQ(c.kept[1].parent_id, "n2");
  EXPECT_EQ(c.kept[1].carried_from->status, "too_hard");
  EXPECT_FALSE(c.kept[1].too_hard);  // too hard there, still to be tried here
  EXPECT_EQ(c.kept[2].parent_id, "");  // its parent n1 was dropped
  EXPECT_EQ(c.kept[3].parent_id, "");  // n5 has no action: not a hypothesis
  EXPECT_EQ(c.kept[3].carried_from->status, "untried");
  EXPECT_NE(c.kept[3].notes.find("observed x1.1"), std::string::npos) << c.kept[3].notes;
  EXPECT_NE(c.kept[3].notes.find("carried from cuda n6"), std::string::npos) << c.kept[3].notes;
}

TEST(CarryOver, GraftedNodesAreOpenUnderTheRootWithFreshIds) {
  WorldModel metal = sample_model();
  const size_t before = metal.nodes.size();
  const auto added = graft(metal, carry_over(cuda_tree(), "cuda", "/runs/cuda", no_tensor_cores).kept);
  ASSERT_EQ(added.size(), 4u);
  EXPECT_EQ(metal.nodes.size(), before + 4);
  EXPECT_TRUE(metal.validate().empty());
  const Node* n2 = metal.find(added[0]);
  const Node* n3 = metal.find(added[1]);
  EXPECT_EQ(n2->parent_id, metal.root_id);
  EXPECT_EQ(n3->parent_id, n2->node_id);
  EXPECT_EQ(metal.state(*n2), NodeState::frontier);
  EXPECT_EQ(metal.state(*n3), NodeState::open);  // waits for its parent's solution here
  // The evidence survives the JSON round trip (snapshots, prompts) and is shown as from cuda.
  const WorldModel back = WorldModel::from_json(metal.to_json());
  ASSERT_TRUE(back.find(added[0])->carried_from.has_value());
  EXPECT_EQ(back.find(added[0])->carried_from->candidate, "c7");
  EXPECT_NE(metal.compact_view().find("[from cuda n2 c7: passed, x3.00 over its parent (3.00x vs the cuda seed)]"), std::string::npos)
      << metal.compact_view();
}

TEST(CarryOver, AParentThatIsNotCarriedIsAnError) {
  WorldModel metal = sample_model();
  Node orphan = make_node("n9", "n8");
  EXPECT_THROW(graft(metal, {orphan}), ksearch::Error);
}

// Evidence from the other backend is a prior weaker than local evidence: a hypothesis that paid
// off there gains at most carried_weight (< gain_weight), one that failed there loses as much.
TEST(CarryOver, SelectionWeighsTheEvidenceThereBelowLocalGains) {
  WorldModel m = sample_model();  // n3 (under n1, solved here at 2x) and n2 are the frontier
  graft(m, carry_over(cuda_tree(), "cuda", "/runs/cuda", no_tensor_cores).kept);
  SelectOptions o;
  o.exploration = 0;
  std::map<std::string, Scored> by_origin;
  for (const auto& s : rank_frontier(m, 10, o))
    by_origin[s.node->carried_from ? "cuda " + s.node->carried_from->node_id : s.node->node_id] = s;
  EXPECT_DOUBLE_EQ(by_origin.at("cuda n2").carried, o.carried_weight);  // the best gain carried
  EXPECT_DOUBLE_EQ(by_origin.at("cuda n6").carried, 0);                 // not measured there
  EXPECT_DOUBLE_EQ(by_origin.at("n3").carried, 0);
  EXPECT_LT(o.carried_weight, o.gain_weight);
  EXPECT_EQ(rank_frontier(m, 10, o).front().node->node_id, "n3");  // the local 2x branch still leads
  // Failed there: a penalty (the child of n2 is not on the frontier; make it one).
  for (auto& n : m.nodes)
    if (n.carried_from && n.carried_from->node_id == "n3") n.parent_id = m.root_id;
  for (const auto& s : rank_frontier(m, 10, o))
    if (s.node->carried_from && s.node->carried_from->node_id == "n3") EXPECT_DOUBLE_EQ(s.carried, -o.carried_weight);
}
