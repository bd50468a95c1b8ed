#pragma once
// The world model: K-Search's tree of optimization hypotheses, plus what ksearch adds (attempt
// counts, too-hard marks, proposer payloads). Field names follow the reference schema so that a
// model proposer reads and writes the same JSON. Schema and rules: docs/SEARCH.md.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.hpp"

namespace ksearch::world_model {

struct Impact {
  double rating_0_to_10 = 5;
  std::string risk;  // e.g. "low", "medium", "high"
  std::string notes;
};

struct Action {
  std::string title;
  std::string description;
  int difficulty_1_to_5 = 2;
  double score_0_to_1 = 0.5;
  double expected_vs_baseline_factor = 1.0;  // predicted speedup over the parent's solution
  std::string rationale;
};

// The evaluated candidate attached to a node when its cycle ends.
struct Solution {
  std::string candidate_id;  // "c<id>" (run store) or "seed"
  std::string status;        // Status name
  double speedup_vs_seed = 0;
  double median_ms = 0;
  double roofline_fraction = 0;
  nlohmann::json payload = nlohmann::json::object();  // the candidate's proposer payload
  int64_t candidate = 0;     // its run-store id (0: the seed); candidate_id is its display name
  double spread = 0;         // relative spread of its timing (EvalReport::spread()); 0: unknown
  // Its gain over the parent node's solution exceeds the timing noise (core/stats measured_gain);
  // false: recorded as "no significant gain", which selection does not count as a gain.
  bool significant = true;
};

// Evidence from a run on another backend (`ksearch run --from`, docs/TRANSLATE.md): where a node
// comes from and what was measured there. Never a solution on this backend: a prior for selection,
// weaker than local evidence (select.hpp). Set by code only.
struct CarriedFrom {
  std::string backend;            // e.g. "cuda"
  std::string run;                // the source run's folder
  std::string node_id;            // the hypothesis' node there; empty for a ported kernel
  std::string candidate;          // the candidate measured there ("c12"); empty when none passed
  std::string status;             // "passed", "too_hard" (nothing passed there) or "untried"
  double speedup_vs_seed = 0;     // there, against that backend's seed
  double factor_over_parent = 0;  // there, over its parent's solution; 0 when not passed
  bool significant = false;       // that factor exceeded the timing noise there
  std::string describe() const;   // e.g. "cuda n7: passed, x1.40 over its parent (2.10x vs the cuda seed)"
};
nlohmann::json carried_to_json(const CarriedFrom& c);
CarriedFrom carried_from_json(const nlohmann::json& j);  // throws Error

enum class NodeState { open, closed, frontier };
std::string state_name(NodeState s);

struct Node {
  std::string node_id;
  std::string parent_id;  // empty for the root
  std::string decision;   // the question this node answers (e.g. "reduction strategy")
  std::string choice;     // the answer it commits to
  std::optional<Action> action;
  std::optional<Solution> solution;
  Impact memory_bandwidth, register_pressure, compute_intensity;
  double overall_rating_0_to_10 = 5;
  double confidence_0_to_1 = 0.5;
  std::string notes;  // reflections are appended here after each cycle
  // ksearch additions.
  int attempts = 0;       // candidates evaluated for this node's action
  int cycles = 0;         // cycles spent on it
  bool too_hard = false;  // a cycle ended without a passing candidate: never selected again
  nlohmann::json payload = nlohmann::json::object();  // proposer-private (built-in: family + knobs)
  std::optional<CarriedFrom> carried_from;  // a hypothesis or kernel from another backend's run
};

struct WorldModel {
  std::string kernel_summary;
  std::vector<std::string> open_questions;
  std::string root_id;
  std::string active_leaf_id;
  std::vector<Node> nodes;
  nlohmann::json signals = nlohmann::json::object();  // computed by code each round

  const Node* find(const std::string& id) const;
  Node* find(const std::string& id);
  std::vector<const Node*> children(const std::string& id) const;
  // OPEN = has an action, no solution; CLOSED = has a solution; FRONTIER = OPEN whose parent is
  // CLOSED or the root. The root counts as closed (it stands for the seed).
  NodeState state(const Node& node) const;
  std::vector<const Node*> frontier() const;
  // The top-level branch a node belongs to (its ancestor just below the root; itself if top-level).
  std::string branch_of(const std::string& id) const;
  std::string new_node_id() const;  // "n<k>", unused so far

  nlohmann::json to_json() const;
  // Throws Error (with what is wrong) on malformed input.
  static WorldModel from_json(const nlohmann::json& j);
  // Structural checks: one root, parents exist, no cycles, unique ids, ranges. Empty = valid.
  std::vector<std::string> validate() const;
  // A short text view for prompts: the path to the active leaf, the frontier, recent outcomes.
  std::string compact_view(size_t max_nodes = 24) const;
};

// The code's half of the end of a cycle on `node`: attaches the cycle's best solution, or marks the
// node too hard without one (unless the search's budget ended before any of its candidates was evaluated:
// that is no evidence, and the node stays open), and appends the cycle's evidence to its notes. A gain over the parent's
// solution that the timing noise explains is recorded as "no significant gain" (solution.significant
// false), not as an observed factor. Returns the gain over the parent (factor 0 without a solution).
struct CycleOutcome {
  int cycle = 0, rounds = 0, attempts = 0;
  double predicted_factor = 1;
  std::optional<Solution> best;  // the cycle's best passing candidate
  bool cut_off = false;           // nothing evaluated: the search's budget (time, rounds, proposer) ended first
};
Gain close_cycle(WorldModel& model, Node& node, const CycleOutcome& outcome);

// The hypotheses of `source`, another backend's tree, worth carrying into a search on this backend:
// every node with an action except those `irrelevant` gives a reason for (dropped; their
// descendants hang from the nearest kept ancestor instead). Kept nodes keep the source's node ids,
// and parent ids (empty: under the root); their outcome there is in `carried_from` (backend and
// run as given), never a solution; attempts, cycles and payload (the other backend's proposer's)
// are not carried.
struct DroppedHypothesis {
  std::string node_id, title, reason;
};
struct CarryOver {
  std::vector<Node> kept;
  std::vector<DroppedHypothesis> dropped;
};
CarryOver carry_over(const WorldModel& source, const std::string& backend, const std::string& run,
                     const std::function<std::optional<std::string>(const Node&)>& irrelevant);
// Adds carried nodes (as carry_over returns them) under `model`'s root with fresh ids, parents
// before children; returns the new ids. Throws Error on a node whose parent is neither carried nor empty.
std::vector<std::string> graft(WorldModel& model, const std::vector<Node>& carried);

nlohmann::json node_to_json(const Node& n);
Node node_from_json(const nlohmann::json& j);  // throws Error

// Edit scripts: {"ops": [...]} with ops
//   {"op": "update", "node_id": ID, "fields": {<node fields to overwrite>}}
//   {"op": "insert", "parent_id": ID, "node": {<node>}}          (node_id optional: assigned)
//   {"op": "split", "node_id": ID, "into": [{<node>}, ...]}     (an OPEN node replaced by 2-3 siblings)
//   {"op": "delete", "node_id": ID}                              (OPEN leaves only)
// Applied all-or-nothing: on any error the model is unchanged and every error is returned, so the
// proposer can be re-asked with them.
struct EditResult {
  bool ok = true;
  std::vector<std::string> errors;
  std::vector<std::string> inserted;  // ids of new nodes
  std::string error_text() const;
};
inline constexpr int kMaxNewNodesPerEdit = 3;
EditResult apply_edit_script(WorldModel& model, const nlohmann::json& script, int max_new_nodes = kMaxNewNodesPerEdit);

}  // namespace ksearch::world_model
