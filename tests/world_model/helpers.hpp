#pragma once
#include "proposers/world_model.hpp"

namespace ksearch::world_model::test {

inline Node make_node(const std::string& id, const std::string& parent, double score = 0.5, int difficulty = 2) {
  Node n;
  n.node_id = id;
  n.parent_id = parent;
  n.action = Action{"action " + id, "", difficulty, score, 1.5, ""};
  return n;
}

inline Solution passed(double speedup, const std::string& cand = "c1") { return Solution{cand, "passed", speedup, 1, 0.1, {}}; }

// root n0 (the seed), two families n1, n2; n1 solved at 2x with one child n3.
inline WorldModel sample_model() {
  WorldModel m;
  m.kernel_summary = "softmax";
  m.root_id = "n0";
  Node root;
  root.node_id = "n0";
  root.solution = passed(1.0, "seed");
  m.nodes = {root, make_node("n1", "n0", 0.6), make_node("n2", "n0", 0.5), make_node("n3", "n1", 0.5)};
  m.find("n1")->solution = passed(2.0);
  m.find("n1")->attempts = 2;
  return m;
}

}  // namespace ksearch::world_model::test
