// The K-Search world-model strategy ("world_model", the default): a tree of optimization
// hypotheses grown by the proposer's planning role, worked on in cycles.
//
//   select   propose hypotheses when the frontier is thin; pick a frontier node (select.hpp)
//   code     rounds implementing the node's action, from the cycle's best code so far
//   refine   when the cycle stagnates or the proposer is exhausted: attach the cycle's best
//            solution (or mark the node too hard), then the proposer may edit the tree
// With several rounds in flight (the asynchronous loop), several cycles are open at once: a cycle
// whose last round came back continues first; spare places go to the best node by selection, where
// pending evaluations weigh against their node, so that concurrent rounds try different hypotheses.
// The algorithm is documented in docs/SEARCH.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "proposers/world_model.hpp"
#include "search/search.hpp"
#include "search/strategy.hpp"
#include "strategies/world_model/select.hpp"

using nlohmann::json;

namespace ksearch::world_model {

namespace {

struct Options {
  int stagnation_window = 5;  // a cycle ends after this many rounds without improvement
  int frontier_min = 1;       // ask the proposer for more hypotheses below this many selectable nodes
  int reask = 2;              // re-asks with the errors of an invalid edit script
  SelectOptions select;

  static Options from_json(const json& config) {
    Options o;
    search::read_options("world_model", config, [&](const std::string& key, const json& v) {
      if (key == "stagnation_window") o.stagnation_window = v.get<int>();
      else if (key == "frontier_min") o.frontier_min = v.get<int>();
      else if (key == "reask") o.reask = v.get<int>();
      else if (key == "difficulty_cap") o.select.difficulty_cap = v.get<int>();
      else if (key == "exploration") o.select.exploration = v.get<double>();
      else if (key == "gain_weight") o.select.gain_weight = v.get<double>();
      else if (key == "pending_penalty") o.select.pending_penalty = v.get<double>();
      else if (key == "carried_weight") o.select.carried_weight = v.get<double>();
      else return false;
      return true;
    });
    if (o.stagnation_window < 1) throw Error("strategy world_model: stagnation_window must be at least 1");
    if (o.select.difficulty_cap < 1 || o.select.difficulty_cap > 5) throw Error("strategy world_model: difficulty_cap must be in 1..5");
    if (o.select.pending_penalty < 0) throw Error("strategy world_model: pending_penalty must not be negative");
    if (o.select.carried_weight < 0) throw Error("strategy world_model: carried_weight must not be negative");
    return o;
  }
};

// A cycle on one node.
struct Cycle {
  int number = 0;
  bool over = false;  // stagnated, exhausted or out of budget: refined once its pending rounds are back
  std::string node_id;
  int rounds = 0, since_improvement = 0, attempts = 0;
  int64_t best_candidate = 0;
  double best_speedup = 0, best_spread = 0;
  bool passed = false, exhausted = false;
  bool finalized = false;  // the code's half of the refinement is done (the proposer's may be pending)
  std::vector<proposers::Feedback> feedback;  // the latest few attempts
  int64_t parent_candidate = 0;
  double parent_speedup = 1;
};
void to_json(json& j, const Cycle& c) {
  j = {{"number", c.number},           {"over", c.over},
       {"node_id", c.node_id},         {"rounds", c.rounds},         {"since_improvement", c.since_improvement},
       {"attempts", c.attempts},       {"best_candidate", c.best_candidate}, {"best_speedup", c.best_speedup},
       {"best_spread", c.best_spread},
       {"passed", c.passed},           {"exhausted", c.exhausted},   {"finalized", c.finalized},
       {"feedback", json::array()},    {"parent_candidate", c.parent_candidate}, {"parent_speedup", c.parent_speedup}};
  for (const auto& f : c.feedback) j["feedback"].push_back(f.to_json());
}

void from_json(const json& j, Cycle& c) {
  c.number = j.value("number", 0);  // absent before several cycles could be open: restore() sets it
  c.over = j.value("over", false);
  c.node_id = j.at("node_id").get<std::string>();
  c.rounds = j.at("rounds").get<int>();
  c.since_improvement = j.at("since_improvement").get<int>();
  c.attempts = j.at("attempts").get<int>();
  c.best_candidate = j.at("best_candidate").get<int64_t>();
  c.best_speedup = j.at("best_speedup").get<double>();
  c.best_spread = j.value("best_spread", 0.0);  // absent in snapshots taken before spreads were kept
  c.passed = j.at("passed").get<bool>();
  c.exhausted = j.at("exhausted").get<bool>();
  c.finalized = j.at("finalized").get<bool>();
  c.feedback.clear();
  for (const auto& f : j.at("feedback")) c.feedback.push_back(proposers::Feedback::from_json(f));
  c.parent_candidate = j.at("parent_candidate").get<int64_t>();
  c.parent_speedup = j.at("parent_speedup").get<double>();
}

constexpr size_t kFeedbackKept = 4;

class WorldModelStrategy : public search::Strategy {
 public:
  explicit WorldModelStrategy(Options options) : options_(options) {}

  std::string name() const override { return "world_model"; }

  bool init(search::Context& ctx) override {
    if (!ctx.can_plan()) throw Error("strategy world_model needs a proposer with the planning role (builtin, llm, agent)");
    if (!model_.nodes.empty()) return true;
    auto reply = ctx.ask(proposers::InitializeRequest{ctx.brief()});
    if (!reply) return false;
    model_ = WorldModel::from_json(reply->world_model);
    // The root stands for the seed: its solution is code-owned.
    Node* root = model_.find(model_.root_id);
    if (!root->solution) root->solution = Solution{"seed", "passed", 1.0, 0, 0, root->payload};
    carry_over_transfer(ctx);
    update_signals(ctx);
    ctx.notify(search::EventKind::message, fmt::format("world model: {} hypotheses under the root", model_.children(model_.root_id).size()));
    return true;
  }

  search::Plan next(search::Context& ctx) override {
    const std::vector<search::PendingRound> pending = ctx.pending();
    auto has_pending = [&](const Cycle& cs) {
      return std::any_of(pending.begin(), pending.end(), [&](const auto& p) { return p.cycle == cs.number; });
    };
    // Cycles that are over are refined once all their rounds are back (their evidence is complete);
    // a cycle whose node another cycle's refinement deleted from the tree ends without one.
    for (size_t i = 0; i < cycles_.size();) {
      if (!model_.find(cycles_[i].node_id)) {
        cycles_[i].over = true;
        if (has_pending(cycles_[i])) {
          ++i;
          continue;
        }
        ctx.notify(search::EventKind::message, fmt::format("cycle {}: its node {} was removed from the tree", cycles_[i].number, cycles_[i].node_id));
        cycles_.erase(cycles_.begin() + std::ptrdiff_t(i));
        continue;
      }
      if (cycles_[i].over && !has_pending(cycles_[i])) {
        if (!refine(ctx, i)) return search::Plan::wait();
        continue;
      }
      ++i;
    }
    // A cycle waiting for its next round goes on (one round at a time, each from the latest feedback).
    for (auto& cs : cycles_)
      if (!cs.over && !has_pending(cs)) return code_plan(ctx, cs);
    // A free place: the best node by selection, pending evaluations counted against their nodes.
    PendingEvaluations by_node;
    for (const auto& p : pending) by_node[p.node_id] += std::max(p.evaluations, 1);
    if (!propose_if_thin(ctx)) return search::Plan::wait();
    for (const Scored& s : rank_frontier(model_, int(ctx.store().candidates().size()), options_.select, by_node)) {
      Cycle* open = cycle_on(s.node->node_id);
      if (!open) return code_plan(ctx, start_cycle(ctx, s.node->node_id));
      if (!open->over) return code_plan(ctx, *open);  // another round of an open cycle, ahead of its feedback
    }
    return search::Plan::stop("search space exhausted (no selectable hypothesis)");
  }

  void observe(search::Context& ctx, const search::Observation& obs) override {
    if (!obs.candidates.empty()) {
      model_.signals["last_status"] = obs.candidates.back().status;
      model_.signals["last_latency_ms"] = obs.candidates.back().median_ms;
    }
    if (obs.seed) {  // the seed's own evaluation: numbers for the root; kernels carried over become roots of their own
      for (const auto& c : obs.candidates) {
        if (c.payload.contains("carried_from")) {
          add_carried_kernel(ctx, c);
          continue;
        }
        Node* root = model_.find(model_.root_id);
        root->solution = Solution{search::candidate_name(c.id), c.status, c.speedup_vs_seed, c.median_ms, c.roofline_fraction,
                                  root->payload, c.id, search::timing_spread(c)};
      }
      update_signals(ctx);
      return;
    }
    Cycle* found = cycle_number(obs.cycle);
    if (!found) throw Error(fmt::format("world_model: round {} belongs to cycle {}, which is not open", obs.round, obs.cycle));
    Cycle& cs = *found;
    Node* node = model_.find(cs.node_id);
    bool improved = false;
    for (const auto& c : obs.candidates) {
      if (node) node->attempts++;
      cs.attempts++;
      cs.feedback.push_back(search::feedback_of(c));
      if (c.status != "passed") continue;
      // Only a gain larger than the timing noise improves the cycle (and restarts its stagnation count).
      const double spread = search::timing_spread(c);
      const Gain gain = measured_gain(c.speedup_vs_seed, spread, cs.best_speedup, cs.best_spread);
      if (cs.passed && !gain.significant()) {
        if (gain.factor > 1)
          ctx.notify(search::EventKind::message,
                     fmt::format("{}: x{:.2f} over the cycle's best {} is within the timing noise (+-{:.0f}%): no significant gain",
                                 search::candidate_name(c.id), gain.factor, search::candidate_name(cs.best_candidate), 100 * gain.noise));
        continue;
      }
      cs.passed = true;
      cs.best_candidate = c.id;
      cs.best_speedup = c.speedup_vs_seed;
      cs.best_spread = spread;
      improved = true;
    }
    if (cs.feedback.size() > kFeedbackKept) cs.feedback.erase(cs.feedback.begin(), cs.feedback.end() - kFeedbackKept);
    cs.rounds++;
    cs.since_improvement = improved ? 0 : cs.since_improvement + 1;
    cs.exhausted = cs.exhausted || obs.exhausted;
    cs.over = cs.over || cs.exhausted || cs.since_improvement >= options_.stagnation_window || ctx.budget_spent();
    update_signals(ctx);
  }

  // Cycles still open when the budget ends are closed (refined) before the verdict.
  bool finish(search::Context& ctx) override {
    while (!cycles_.empty()) {
      if (!model_.find(cycles_.front().node_id)) {  // removed from the tree by another cycle's refinement
        cycles_.erase(cycles_.begin());
        continue;
      }
      cycles_.front().over = true;
      if (!refine(ctx, 0)) return false;
    }
    return true;
  }

  json snapshot() const override { return {{"cycle", cycle_number_}, {"cycles", cycles_}, {"model", model_.to_json()}}; }

  void restore(const json& s) override {
    try {
      cycle_number_ = s.at("cycle").get<int>();
      cycles_.clear();
      if (s.contains("cycles")) {
        cycles_ = s["cycles"].get<std::vector<Cycle>>();
      } else if (s.at("current").is_object()) {  // stored when one cycle at a time was open
        Cycle cs = s["current"].get<Cycle>();
        cs.number = cycle_number_;
        cs.over = s.at("stage") == "refine";
        cycles_.push_back(cs);
      }
      model_ = WorldModel::from_json(s.at("model"));
    } catch (const std::exception& e) {
      throw Error(std::string("malformed world_model strategy state: ") + e.what());
    }
  }

  json tree() const override { return model_.nodes.empty() ? json() : model_.to_json(); }

  std::string status() const override {
    if (cycles_.empty()) return fmt::format("cycle {}", cycle_number_);
    std::string open;
    for (const auto& cs : cycles_) {
      const Node* n = model_.find(cs.node_id);
      open += fmt::format("{}cycle {} on {}{}", open.empty() ? "" : "; ", cs.number, cs.node_id,
                          n && n->action ? ": " + n->action->title : "");
    }
    return open;
  }

 private:
  void update_signals(const search::Context& ctx) {
    std::vector<double> seed_ms;
    for (const auto& c : ctx.store().candidates())
      if (c.report.is_object())
        for (const auto& w : c.report.value("workloads", json::array()))
          if (w.value("seed_ms", 0.0) > 0) seed_ms.push_back(w["seed_ms"].get<double>());
    const double log_sum = std::accumulate(seed_ms.begin(), seed_ms.end(), 0.0, [](double a, double b) { return a + std::log(b); });
    model_.signals["round"] = ctx.round();
    model_.signals["rounds_budget"] = ctx.rounds();
    model_.signals["reference_latency_ms"] = seed_ms.empty() ? 0.0 : std::exp(log_sum / double(seed_ms.size()));
    if (const auto best = ctx.best()) {
      model_.signals["best_speedup_vs_seed"] = best->speedup;
      model_.signals["best_latency_ms"] = best->median_ms;
      model_.signals["best_candidate"] = search::candidate_name(best->candidate);
    }
  }

  // What the run carries over from another backend's run (`run --from`), added to the fresh tree
  // once: the seed's origin on the root, the source run's hypotheses under it. Resume restores the
  // tree from the snapshot taken after init, so they are never added twice.
  void carry_over_transfer(search::Context& ctx) {
    const search::Transfer& transfer = ctx.transfer();
    if (!transfer.seed_origin.is_null()) model_.find(model_.root_id)->carried_from = carried_from_json(transfer.seed_origin);
    std::vector<Node> carried;
    for (const auto& j : transfer.hypotheses) carried.push_back(node_from_json(j));
    const auto added = graft(model_, carried);
    if (!added.empty())
      ctx.notify(search::EventKind::message,
                 fmt::format("world model: {} hypotheses carried over from the {} run (their evidence there is a prior, not a result here)",
                             added.size(), carried.front().carried_from ? carried.front().carried_from->backend : "other"));
  }

  // A kernel carried over from another backend (a lower-ranked port), evaluated in round 0: a root
  // of its own under the seed's, closed with its evaluation here (too hard when it failed here), so
  // that selection refines it like any solution.
  void add_carried_kernel(search::Context& ctx, const store::Candidate& c) {
    Node n;
    n.node_id = model_.new_node_id();
    n.parent_id = model_.root_id;
    n.carried_from = carried_from_json(c.payload.at("carried_from"));
    n.decision = "starting kernel";
    n.choice = c.note;
    n.action = Action{c.note, fmt::format("Start from {}, evaluated with the seed.", n.carried_from->describe()), 1, 0.5, 1.0,
                      "a kernel carried over from the " + n.carried_from->backend + " run"};
    n.attempts = 1;
    if (c.status == "passed") {
      n.solution = Solution{search::candidate_name(c.id), c.status, c.speedup_vs_seed, c.median_ms, c.roofline_fraction,
                            json::object(), c.id, search::timing_spread(c)};
      // Like a cycle's solution: its gain over the seed counts for its children only beyond the timing noise.
      const Solution& seed = *model_.find(model_.root_id)->solution;
      n.solution->significant = measured_gain(c.speedup_vs_seed, n.solution->spread, seed.speedup_vs_seed, seed.spread).significant();
      n.notes = fmt::format("round 0: {} passed here, {:.2f}x vs seed; there: {}", search::candidate_name(c.id), c.speedup_vs_seed,
                            n.carried_from->describe());
    } else {
      n.too_hard = true;
      n.notes = fmt::format("round 0: {} {} here; there: {}", search::candidate_name(c.id), c.status, n.carried_from->describe());
    }
    ctx.notify(search::EventKind::message, fmt::format("world model: {} ({}) becomes a root of its own, {}", c.note, n.solution ? "passed" : c.status, n.node_id));
    model_.nodes.push_back(std::move(n));
  }

  Cycle* cycle_on(const std::string& node_id) {
    const auto it = std::find_if(cycles_.begin(), cycles_.end(), [&](const Cycle& cs) { return cs.node_id == node_id; });
    return it == cycles_.end() ? nullptr : &*it;
  }
  Cycle* cycle_number(int number) {
    const auto it = std::find_if(cycles_.begin(), cycles_.end(), [&](const Cycle& cs) { return cs.number == number; });
    return it == cycles_.end() ? nullptr : &*it;
  }

  // Asks for more hypotheses when fewer than frontier_min are selectable. False: waiting.
  bool propose_if_thin(search::Context& ctx) {
    const int attempts = int(ctx.store().candidates().size());
    if (int(rank_frontier(model_, attempts, options_.select).size()) >= options_.frontier_min) return true;
    std::string errors;
    for (int k = 0; k <= options_.reask; ++k) {
      proposers::ProposeRequest request{ctx.brief(), model_.to_json(), "the frontier has no selectable hypothesis left", errors,
                                        kMaxNewNodesPerEdit};
      std::optional<proposers::ProposeReply> reply;
      try {
        reply = ctx.ask(request);
      } catch (const std::exception&) {
        break;  // recorded; select from what there is
      }
      if (!reply) return false;
      const EditResult r = apply_edit_script(model_, reply->edit_script);
      if (r.ok) {
        if (!r.inserted.empty()) ctx.checkpoint("propose");
        break;
      }
      errors = r.error_text();
      ctx.notify(search::EventKind::message, "edit script rejected:\n" + errors);
    }
    return true;
  }

  // Starts a cycle on `node_id` (chosen by selection).
  Cycle& start_cycle(search::Context& ctx, const std::string& node_id) {
    const Node* node = model_.find(node_id);
    const Node* parent = model_.find(node->parent_id);
    Cycle cs;
    cs.number = ++cycle_number_;
    cs.node_id = node_id;
    if (parent && parent->solution) {
      cs.parent_candidate = parent->solution->candidate;
      if (parent->solution->speedup_vs_seed > 0) cs.parent_speedup = parent->solution->speedup_vs_seed;
    }
    cycles_.push_back(cs);
    model_.active_leaf_id = node_id;
    ctx.checkpoint("select " + node_id);
    ctx.notify(search::EventKind::cycle_start, fmt::format("cycle {}: {} {}", cs.number, node_id, node->action ? node->action->title : ""));
    return cycles_.back();
  }

  // The next round of cycle `cs`; its node becomes the active leaf (the prompts' view is its path).
  search::Plan code_plan(const search::Context& ctx, const Cycle& cs) {
    model_.active_leaf_id = cs.node_id;
    return search::Plan::code(code_request(ctx, cs), cs.number);
  }

  proposers::CodeRequest code_request(const search::Context& ctx, const Cycle& cs) const {
    const Node* node = model_.find(cs.node_id);
    if (!node) throw Error("the active node vanished from the world model");
    proposers::CodeRequest request;
    request.node_id = node->node_id;
    request.action = node->action ? json{{"title", node->action->title},
                                         {"description", node->action->description},
                                         {"difficulty_1_to_5", node->action->difficulty_1_to_5},
                                         {"score_0_to_1", node->action->score_0_to_1},
                                         {"expected_vs_baseline_factor", node->action->expected_vs_baseline_factor},
                                         {"rationale", node->action->rationale}}
                                  : json::object();
    request.node_payload = node->payload;
    // Known-good code: the cycle's best so far, else the parent's solution, else the seed.
    request.parent_candidate = cs.passed ? cs.best_candidate : cs.parent_candidate;
    if (request.parent_candidate) {
      const auto parent = ctx.store().candidate(request.parent_candidate);
      request.parent_source = parent->source;
      request.parent_payload = parent->payload;
    } else {
      request.parent_source = ctx.brief().seed_source;
      if (const Node* root = model_.find(model_.root_id)) request.parent_payload = root->payload;
    }
    request.world_view = model_.compact_view();
    request.mode = cs.passed ? "improve" : "debug";
    request.round_in_cycle = cs.rounds;
    request.feedback = cs.feedback;
    return request;
  }

  // Ends the cycle cycles_[index] (removed once refined). False: waiting for the proposer's refine answer.
  bool refine(search::Context& ctx, size_t index) {
    Cycle& cs = cycles_[index];
    Node* node = model_.find(cs.node_id);
    if (!node) throw Error("the active node vanished from the world model");
    proposers::CycleSummary summary;
    summary.node_id = node->node_id;
    summary.rounds = cs.rounds;
    summary.attempts = cs.attempts;
    summary.passed = cs.passed;
    summary.best_candidate = cs.best_candidate;
    summary.best_speedup = cs.best_speedup;
    summary.parent_speedup = cs.parent_speedup;
    summary.predicted_factor = node->action ? node->action->expected_vs_baseline_factor : 1;
    summary.observed_factor = summary.passed && summary.parent_speedup > 0 ? summary.best_speedup / summary.parent_speedup : 0;
    const bool cut_off = !summary.passed && summary.attempts == 0 && ctx.budget_spent();
    if (!cs.finalized) {
      // The code's half of the refinement: attach the cycle's best, or mark the node too hard.
      CycleOutcome outcome{cs.number, summary.rounds, summary.attempts, summary.predicted_factor, std::nullopt, cut_off};
      if (summary.passed) {
        const auto best = ctx.store().candidate(summary.best_candidate);
        outcome.best = Solution{search::candidate_name(best->id), best->status, best->speedup_vs_seed, best->median_ms,
                                best->roofline_fraction, best->payload, best->id, search::timing_spread(*best)};
        summary.best_payload = best->payload;
      }
      const Gain gain = close_cycle(model_, *node, outcome);
      cs.finalized = true;
      ctx.notify(search::EventKind::cycle_end,
                 fmt::format("cycle {} on {}: {}", cs.number, node->node_id,
                             summary.passed      ? fmt::format("{:.2f}x vs seed ({}){}", summary.best_speedup,
                                                               search::candidate_name(summary.best_candidate),
                                                               gain.significant() ? "" : ", no significant gain over its parent")
                             : cut_off ? std::string("no candidate evaluated before the search's budget ended, left open")
                                       : std::string("no passing candidate, marked too hard")));
      ctx.checkpoint("cycle end " + node->node_id);
    } else if (summary.passed) {
      summary.best_payload = ctx.store().candidate(summary.best_candidate)->payload;
    }
    // A gain the timing noise explains is no lesson: the planner is told the action changed nothing measurable.
    if (summary.passed && node->solution && !node->solution->significant && summary.observed_factor > 1) summary.observed_factor = 1;
    std::string errors;
    // Without an evaluation there is nothing to learn from: the proposer is not asked to edit the tree.
    for (int k = 0; !cut_off && k <= options_.reask; ++k) {
      proposers::RefineRequest request{ctx.brief(), model_.to_json(), summary, errors, kMaxNewNodesPerEdit};
      std::optional<proposers::RefineReply> reply;
      try {
        reply = ctx.ask(request);
      } catch (const std::exception&) {
        break;  // recorded; the tree stays as the code left it
      }
      if (!reply) return false;
      const EditResult r = apply_edit_script(model_, reply->edit_script);
      if (r.ok) {
        if (Node* n = model_.find(summary.node_id); n && !reply->reflection.empty()) n->notes += "\nreflection: " + reply->reflection;
        break;
      }
      errors = r.error_text();
      ctx.notify(search::EventKind::message, "refine edit script rejected:\n" + errors);
    }
    if (model_.active_leaf_id == summary.node_id) model_.active_leaf_id.clear();
    cycles_.erase(cycles_.begin() + std::ptrdiff_t(index));
    ctx.checkpoint("refine");
    return true;
  }

  Options options_;
  int cycle_number_ = 0;       // cycles started
  std::vector<Cycle> cycles_;  // open cycles, oldest first (several while rounds run concurrently)
  WorldModel model_;
};

}  // namespace

KSEARCH_REGISTER_STRATEGY("world_model", world_model, [](const search::StrategyEnv&, const json& config) {
  return std::make_unique<WorldModelStrategy>(Options::from_json(config));
});

}  // namespace ksearch::world_model
