#pragma once
// Selection of the next node to work on: by code, never by the proposer. Formula: docs/SEARCH.md.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proposers/world_model.hpp"

namespace ksearch::world_model {

struct SelectOptions {
  int difficulty_cap = 4;   // frontier nodes harder than this are not selected
  double exploration = 0.5; // c in the UCB1 term
  double gain_weight = 0.5; // weight of the parent's observed gain
  double pending_penalty = 0.5;  // virtual loss per evaluation pending on the node
  // Weight of a carried hypothesis' outcome on another backend (`run --from`): below gain_weight,
  // since evidence measured elsewhere is a weaker guide than this backend's own.
  double carried_weight = 0.25;
};

// Evaluations in flight (asked for, not yet observed) per node id.
using PendingEvaluations = std::map<std::string, int>;

struct Scored {
  const Node* node = nullptr;
  double prior = 0, gain = 0, explore = 0;
  double penalty = 0;  // the virtual loss of its pending evaluations
  double carried = 0;  // its outcome on another backend (a carried hypothesis): up to +carried_weight, -carried_weight when it failed there
  int branch_attempts = 0;  // observed attempts plus pending evaluations in its branch
  double total() const { return prior + gain + explore + carried - penalty; }
};

// Every selectable frontier node (has an action, difficulty <= cap, not too hard) with its score,
// best first: total desc, then difficulty asc, then overall rating desc, then node id.
// `total_attempts` is N in the exploration term (candidates in the whole run, pending ones
// included). `pending` spreads concurrent choices: each pending evaluation counts as a visit of its
// branch and costs its node `pending_penalty` (a virtual loss), so the next pick goes elsewhere
// unless the node leads by more.
std::vector<Scored> rank_frontier(const WorldModel& model, int total_attempts, const SelectOptions& options = {},
                                  const PendingEvaluations& pending = {});
std::optional<std::string> select_node(const WorldModel& model, int total_attempts, const SelectOptions& options = {},
                                       const PendingEvaluations& pending = {});

}  // namespace ksearch::world_model
