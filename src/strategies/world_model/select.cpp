#include "strategies/world_model/select.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ksearch::world_model {

namespace {

// Attempts spent so far in each top-level branch, pending ones included (the visits count n of UCB1).
std::map<std::string, int> branch_attempts(const WorldModel& m, const PendingEvaluations& pending) {
  std::map<std::string, int> out;
  for (const auto& n : m.nodes)
    if (n.node_id != m.root_id) out[m.branch_of(n.node_id)] += n.attempts;
  for (const auto& [id, count] : pending)
    if (m.find(id) && id != m.root_id) out[m.branch_of(id)] += count;
  return out;
}

double best_speedup(const WorldModel& m) {
  double best = 1;
  for (const auto& n : m.nodes)
    if (n.solution && n.solution->status == "passed") best = std::max(best, n.solution->speedup_vs_seed);
  return best;
}

// The largest significant gain a carried hypothesis had over its parent on its own backend.
double best_carried_factor(const WorldModel& m) {
  double best = 1;
  for (const auto& n : m.nodes)
    if (n.carried_from && n.carried_from->status == "passed" && n.carried_from->significant)
      best = std::max(best, n.carried_from->factor_over_parent);
  return best;
}

// A carried hypothesis' outcome where it was measured, in [-1, 1]: its significant gain over its
// parent there on a log scale (1 for the best carried gain), -1 when nothing passed there.
double carried_evidence(const CarriedFrom& c, double best_factor) {
  if (c.status == "too_hard") return -1;
  if (c.status != "passed" || !c.significant || c.factor_over_parent <= 1 || best_factor <= 1) return 0;
  return std::clamp(std::log(c.factor_over_parent) / std::log(best_factor), 0.0, 1.0);
}

}  // namespace

std::vector<Scored> rank_frontier(const WorldModel& m, int total_attempts, const SelectOptions& o, const PendingEvaluations& pending) {
  const auto visits = branch_attempts(m, pending);
  const double best = best_speedup(m), best_carried = best_carried_factor(m);
  std::vector<Scored> out;
  for (const Node* n : m.frontier()) {
    if (!n->action || n->too_hard || n->action->difficulty_1_to_5 > o.difficulty_cap) continue;
    Scored s;
    s.node = n;
    s.prior = n->action->score_0_to_1;
    // Observed gain: how close the parent's realized solution is to the best so far, on a log
    // scale (1 when the parent is the best, 0 when it is no faster than the seed); none when the
    // parent's own gain was within the timing noise.
    const Node* parent = m.find(n->parent_id);
    if (parent && parent->node_id != m.root_id && parent->solution && parent->solution->status == "passed" &&
        parent->solution->significant && best > 1)
      s.gain = o.gain_weight * std::clamp(std::log(std::max(parent->solution->speedup_vs_seed, 1e-9)) / std::log(best), 0.0, 1.0);
    const auto it = visits.find(m.branch_of(n->node_id));
    s.branch_attempts = it == visits.end() ? 0 : it->second;
    s.explore = o.exploration * std::sqrt(std::log(double(total_attempts) + 1) / (s.branch_attempts + 1));
    if (const auto p = pending.find(n->node_id); p != pending.end()) s.penalty = o.pending_penalty * p->second;
    if (n->carried_from) s.carried = o.carried_weight * carried_evidence(*n->carried_from, best_carried);
    out.push_back(s);
  }
  std::stable_sort(out.begin(), out.end(), [](const Scored& a, const Scored& b) {
    if (std::abs(a.total() - b.total()) > 1e-12) return a.total() > b.total();
    if (a.node->action->difficulty_1_to_5 != b.node->action->difficulty_1_to_5)
      return a.node->action->difficulty_1_to_5 < b.node->action->difficulty_1_to_5;
    if (a.node->overall_rating_0_to_10 != b.node->overall_rating_0_to_10)
      return a.node->overall_rating_0_to_10 > b.node->overall_rating_0_to_10;
    return a.node->node_id < b.node->node_id;
  });
  return out;
}

std::optional<std::string> select_node(const WorldModel& m, int total_attempts, const SelectOptions& o, const PendingEvaluations& pending) {
  auto ranked = rank_frontier(m, total_attempts, o, pending);
  if (ranked.empty()) return std::nullopt;
  return ranked.front().node->node_id;
}

}  // namespace ksearch::world_model
