#pragma once
// Selection of the next node to work on: by code, never by the proposer. Formula: docs/SEARCH.md.
#include <optional>
#include <string>
#include <vector>

#include "strategies/world_model/world_model.hpp"

namespace ksearch::world_model {

struct SelectOptions {
  int difficulty_cap = 4;   // frontier nodes harder than this are not selected
  double exploration = 0.5; // c in the UCB1 term
  double gain_weight = 0.5; // weight of the parent's observed gain
};

struct Scored {
  const Node* node = nullptr;
  double prior = 0, gain = 0, explore = 0;
  int branch_attempts = 0;
  double total() const { return prior + gain + explore; }
};

// Every selectable frontier node (has an action, difficulty <= cap, not too hard) with its score,
// best first: total desc, then difficulty asc, then overall rating desc, then node id.
// `total_attempts` is N in the exploration term (candidates evaluated in the whole run).
std::vector<Scored> rank_frontier(const WorldModel& model, int total_attempts, const SelectOptions& options = {});
std::optional<std::string> select_node(const WorldModel& model, int total_attempts, const SelectOptions& options = {});

}  // namespace ksearch::world_model
