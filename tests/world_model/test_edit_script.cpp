#include <gtest/gtest.h>

#include "helpers.hpp"

using namespace ksearch::world_model;
using namespace ksearch::world_model::test;
using nlohmann::json;

namespace {
json new_node(const std::string& title, int difficulty = 2) {
  return {{"decision", "d"}, {"choice", "c"}, {"action", {{"title", title}, {"difficulty_1_to_5", difficulty}, {"score_0_to_1", 0.7}}}};
}
}  // namespace

TEST(EditScript, InsertUpdateDelete) {
  WorldModel m = sample_model();
  const json script = {{"ops",
                        {{{"op", "insert"}, {"parent_id", "n1"}, {"node", new_node("tile rows")}},
                         {{"op", "update"}, {"node_id", "n2"}, {"fields", {{"notes", "looks risky"}, {"action", {{"score_0_to_1", 0.2}}}}}},
                         {{"op", "delete"}, {"node_id", "n3"}}}}};
  const EditResult r = apply_edit_script(m, script);
  ASSERT_TRUE(r.ok) << r.error_text();
  ASSERT_EQ(r.inserted.size(), 1u);
  const Node* added = m.find(r.inserted[0]);
  ASSERT_TRUE(added);
  EXPECT_EQ(added->parent_id, "n1");
  EXPECT_EQ(m.state(*added), NodeState::frontier);
  EXPECT_EQ(m.find("n2")->notes, "looks risky");
  EXPECT_DOUBLE_EQ(m.find("n2")->action->score_0_to_1, 0.2);
  EXPECT_EQ(m.find("n2")->action->title, "action n2");  // partial update keeps other fields
  EXPECT_EQ(m.find("n3"), nullptr);
}

TEST(EditScript, AllOrNothingWithEveryError) {
  WorldModel m = sample_model();
  const json before = m.to_json();
  const json script = {{"ops",
                        {{{"op", "insert"}, {"parent_id", "n1"}, {"node", new_node("ok")}},
                         {{"op", "insert"}, {"parent_id", "nope"}, {"node", new_node("orphan")}},
                         {{"op", "delete"}, {"node_id", "n1"}},                       // has a solution
                         {{"op", "update"}, {"node_id", "n2"}, {"fields", {{"solution", {{"candidate_id", "c9"}}}}}},
                         {{"op", "insert"}, {"parent_id", "n0"}, {"node", new_node("bad", 7)}},
                         {{"op", "frobnicate"}}}}};
  const EditResult r = apply_edit_script(m, script);
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.errors.size(), 5u);
  EXPECT_TRUE(r.inserted.empty());
  EXPECT_EQ(m.to_json(), before);  // unchanged
  EXPECT_NE(r.error_text().find("ops[1]"), std::string::npos);
  EXPECT_NE(r.error_text().find("set by code"), std::string::npos);
}

TEST(EditScript, AtMostThreeNewNodes) {
  WorldModel m = sample_model();
  json ops = json::array();
  for (int i = 0; i < 4; ++i) ops.push_back({{"op", "insert"}, {"parent_id", "n0"}, {"node", new_node("x" + std::to_string(i))}});
  const EditResult r = apply_edit_script(m, {{"ops", ops}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error_text().find("at most 3"), std::string::npos);
  ops.erase(ops.begin());
  EXPECT_TRUE(apply_edit_script(m, {{"ops", ops}}).ok);
}

TEST(EditScript, SplitReplacesAnOpenNode) {
  WorldModel m = sample_model();
  const EditResult r = apply_edit_script(m, {{"ops", {{{"op", "split"}, {"node_id", "n2"}, {"into", {new_node("a"), new_node("b")}}}}}});
  ASSERT_TRUE(r.ok) << r.error_text();
  EXPECT_EQ(m.find("n2"), nullptr);
  EXPECT_EQ(r.inserted.size(), 2u);
  for (const auto& id : r.inserted) EXPECT_EQ(m.find(id)->parent_id, "n0");
  // Closed nodes cannot be split; new nodes cannot come pre-solved.
  EXPECT_FALSE(apply_edit_script(m, {{"ops", {{{"op", "split"}, {"node_id", "n1"}, {"into", {new_node("a"), new_node("b")}}}}}}).ok);
  json solved = new_node("s");
  solved["solution"] = {{"candidate_id", "c1"}, {"status", "passed"}};
  ASSERT_TRUE(apply_edit_script(m, {{"ops", {{{"op", "insert"}, {"parent_id", "n0"}, {"node", solved}}}}}).ok);
  EXPECT_FALSE(m.nodes.back().solution.has_value());
}

TEST(EditScript, MalformedScript) {
  WorldModel m = sample_model();
  EXPECT_FALSE(apply_edit_script(m, json("insert a node please")).ok);
  EXPECT_FALSE(apply_edit_script(m, {{"ops", {{{"op", "insert"}, {"parent_id", "n0"}, {"node", {{"decision", "no action"}}}}}}}).ok);
}

// Evidence from another backend is set by code (`run --from`): a proposer can neither forge nor edit it.
TEST(EditScript, CarriedEvidenceIsOwnedByCode) {
  WorldModel m = sample_model();
  const json evidence = {{"backend", "cuda"}, {"status", "passed"}, {"factor_over_parent", 9.0}, {"significant", true}};
  json forged = new_node("claims a cuda win");
  forged["carried_from"] = evidence;
  const EditResult inserted = apply_edit_script(m, {{"ops", {{{"op", "insert"}, {"parent_id", "n0"}, {"node", forged}}}}});
  ASSERT_TRUE(inserted.ok) << inserted.error_text();
  EXPECT_FALSE(m.find(inserted.inserted[0])->carried_from.has_value());
  const EditResult updated =
      apply_edit_script(m, {{"ops", {{{"op", "update"}, {"node_id", "n2"}, {"fields", {{"carried_from", evidence}}}}}}});
  EXPECT_FALSE(updated.ok);
  EXPECT_NE(updated.error_text().find("carried_from is set by code"), std::string::npos) << updated.error_text();
}
