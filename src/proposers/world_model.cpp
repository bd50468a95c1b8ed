#include "proposers/world_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"

using nlohmann::json;

namespace ksearch::world_model {

std::string state_name(NodeState s) {
  switch (s) {
    case NodeState::open: return "OPEN";
    case NodeState::closed: return "CLOSED";
    case NodeState::frontier: return "FRONTIER";
  }
  return "?";
}

std::string CarriedFrom::describe() const {
  const std::string where = backend + (node_id.empty() ? "" : " " + node_id) + (candidate.empty() ? "" : " " + candidate);
  if (status == "passed")
    return factor_over_parent > 0
               ? fmt::format("{}: passed, x{:.2f} over its parent{} ({:.2f}x vs the {} seed)", where, factor_over_parent,
                             significant ? "" : " (within the noise)", speedup_vs_seed, backend)
               : fmt::format("{}: {:.2f}x vs the {} seed", where, speedup_vs_seed, backend);
  return fmt::format("{}: {}", where, status == "too_hard" ? "nothing passed there (too hard)" : "not measured there");
}

json carried_to_json(const CarriedFrom& c) {
  return {{"backend", c.backend},
          {"run", c.run},
          {"node_id", c.node_id},
          {"candidate", c.candidate},
          {"status", c.status},
          {"speedup_vs_seed", c.speedup_vs_seed},
          {"factor_over_parent", c.factor_over_parent},
          {"significant", c.significant}};
}

CarriedFrom carried_from_json(const json& j) {
  if (!j.is_object()) throw Error("carried_from must be a JSON object");
  try {
    CarriedFrom c;
    c.backend = j.at("backend").get<std::string>();
    c.run = j.value("run", "");
    c.node_id = j.value("node_id", "");
    c.candidate = j.value("candidate", "");
    c.status = j.value("status", "untried");
    c.speedup_vs_seed = j.value("speedup_vs_seed", 0.0);
    c.factor_over_parent = j.value("factor_over_parent", 0.0);
    c.significant = j.value("significant", false);
    return c;
  } catch (const json::exception& e) {
    throw Error(std::string("malformed carried_from: ") + e.what());
  }
}

namespace {

json impact_json(const Impact& i) { return {{"rating_0_to_10", i.rating_0_to_10}, {"risk", i.risk}, {"notes", i.notes}}; }

Impact impact_from(const json& j) {
  Impact i;
  if (!j.is_object()) return i;
  i.rating_0_to_10 = j.value("rating_0_to_10", 5.0);
  i.risk = j.value("risk", "");
  i.notes = j.value("notes", "");
  return i;
}

json action_json(const Action& a) {
  return {{"title", a.title},
          {"description", a.description},
          {"difficulty_1_to_5", a.difficulty_1_to_5},
          {"score_0_to_1", a.score_0_to_1},
          {"expected_vs_baseline_factor", a.expected_vs_baseline_factor},
          {"rationale", a.rationale}};
}

Action action_from(const json& j, const Action& base = {}) {
  Action a = base;
  a.title = j.value("title", a.title);
  a.description = j.value("description", a.description);
  a.difficulty_1_to_5 = j.value("difficulty_1_to_5", a.difficulty_1_to_5);
  a.score_0_to_1 = j.value("score_0_to_1", a.score_0_to_1);
  a.expected_vs_baseline_factor = j.value("expected_vs_baseline_factor", a.expected_vs_baseline_factor);
  a.rationale = j.value("rationale", a.rationale);
  return a;
}

json solution_json(const Solution& s) {
  return {{"candidate_id", s.candidate_id},          {"status", s.status},
          {"speedup_vs_seed", s.speedup_vs_seed},    {"median_ms", s.median_ms},
          {"roofline_fraction", s.roofline_fraction}, {"payload", s.payload},
          {"candidate", s.candidate},                 {"spread", s.spread},
          {"significant", s.significant}};
}

Solution solution_from(const json& j) {
  Solution s;
  s.candidate_id = j.value("candidate_id", "");
  s.status = j.value("status", "");
  s.speedup_vs_seed = j.value("speedup_vs_seed", 0.0);
  s.median_ms = j.value("median_ms", 0.0);
  s.roofline_fraction = j.value("roofline_fraction", 0.0);
  s.payload = j.value("payload", json::object());
  s.candidate = j.value("candidate", int64_t(0));
  s.spread = j.value("spread", 0.0);
  s.significant = j.value("significant", true);
  return s;
}

// Fields a proposer may set on a node (update ops, inserted nodes); the rest is owned by code.
void apply_fields(Node& n, const json& f) {
  if (f.contains("decision")) n.decision = f.at("decision").get<std::string>();
  if (f.contains("choice")) n.choice = f.at("choice").get<std::string>();
  if (f.contains("action")) {
    if (f.at("action").is_null()) n.action.reset();
    else n.action = action_from(f.at("action"), n.action.value_or(Action{}));
  }
  auto impacts = f.value("impacts", json::object());
  if (impacts.contains("memory_bandwidth")) n.memory_bandwidth = impact_from(impacts["memory_bandwidth"]);
  if (impacts.contains("register_pressure")) n.register_pressure = impact_from(impacts["register_pressure"]);
  if (impacts.contains("compute_intensity")) n.compute_intensity = impact_from(impacts["compute_intensity"]);
  if (f.contains("overall_rating_0_to_10")) n.overall_rating_0_to_10 = f.at("overall_rating_0_to_10").get<double>();
  if (f.contains("confidence_0_to_1")) n.confidence_0_to_1 = f.at("confidence_0_to_1").get<double>();
  if (f.contains("notes")) n.notes = f.at("notes").get<std::string>();
  if (f.contains("payload")) n.payload = f.at("payload");
}

std::vector<std::string> check_node_ranges(const Node& n) {
  std::vector<std::string> errors;
  auto where = "node " + n.node_id;
  if (n.action) {
    if (n.action->title.empty()) errors.push_back(where + ": action.title is empty");
    if (n.action->difficulty_1_to_5 < 1 || n.action->difficulty_1_to_5 > 5)
      errors.push_back(where + ": action.difficulty_1_to_5 must be 1..5");
    if (n.action->score_0_to_1 < 0 || n.action->score_0_to_1 > 1) errors.push_back(where + ": action.score_0_to_1 must be 0..1");
    if (n.action->expected_vs_baseline_factor <= 0)
      errors.push_back(where + ": action.expected_vs_baseline_factor must be > 0");
  }
  if (n.overall_rating_0_to_10 < 0 || n.overall_rating_0_to_10 > 10)
    errors.push_back(where + ": overall_rating_0_to_10 must be 0..10");
  if (n.confidence_0_to_1 < 0 || n.confidence_0_to_1 > 1) errors.push_back(where + ": confidence_0_to_1 must be 0..1");
  return errors;
}

}  // namespace

json node_to_json(const Node& n) {
  json j = {{"node_id", n.node_id},
            {"parent_id", n.parent_id.empty() ? json() : json(n.parent_id)},
            {"decision", n.decision},
            {"choice", n.choice},
            {"action", n.action ? action_json(*n.action) : json()},
            {"solution", n.solution ? solution_json(*n.solution) : json()},
            {"impacts",
             {{"memory_bandwidth", impact_json(n.memory_bandwidth)},
              {"register_pressure", impact_json(n.register_pressure)},
              {"compute_intensity", impact_json(n.compute_intensity)}}},
            {"overall_rating_0_to_10", n.overall_rating_0_to_10},
            {"confidence_0_to_1", n.confidence_0_to_1},
            {"notes", n.notes},
            {"attempts", n.attempts},
            {"cycles", n.cycles},
            {"too_hard", n.too_hard},
            {"payload", n.payload}};
  if (n.carried_from) j["carried_from"] = carried_to_json(*n.carried_from);
  return j;
}

Node node_from_json(const json& j) {
  if (!j.is_object()) throw Error("a node must be a JSON object");
  try {
    Node n;
    n.node_id = j.value("node_id", "");
    if (j.contains("parent_id") && !j.at("parent_id").is_null()) n.parent_id = j.at("parent_id").get<std::string>();
    apply_fields(n, j);
    if (j.contains("solution") && !j.at("solution").is_null()) n.solution = solution_from(j.at("solution"));
    n.attempts = j.value("attempts", 0);
    n.cycles = j.value("cycles", 0);
    n.too_hard = j.value("too_hard", false);
    if (j.contains("carried_from") && !j.at("carried_from").is_null()) n.carried_from = carried_from_json(j.at("carried_from"));
    return n;
  } catch (const json::exception& e) {
    throw Error(std::string("malformed node: ") + e.what());
  }
}

const Node* WorldModel::find(const std::string& id) const {
  for (const auto& n : nodes)
    if (n.node_id == id) return &n;
  return nullptr;
}

Node* WorldModel::find(const std::string& id) {
  for (auto& n : nodes)
    if (n.node_id == id) return &n;
  return nullptr;
}

std::vector<const Node*> WorldModel::children(const std::string& id) const {
  std::vector<const Node*> out;
  for (const auto& n : nodes)
    if (n.parent_id == id && n.node_id != id) out.push_back(&n);
  return out;
}

NodeState WorldModel::state(const Node& n) const {
  if (n.solution || n.node_id == root_id) return NodeState::closed;
  if (!n.action) return NodeState::open;
  const Node* parent = find(n.parent_id);
  if (!parent || parent->node_id == root_id || parent->solution) return NodeState::frontier;
  return NodeState::open;
}

std::vector<const Node*> WorldModel::frontier() const {
  std::vector<const Node*> out;
  for (const auto& n : nodes)
    if (state(n) == NodeState::frontier) out.push_back(&n);
  return out;
}

std::string WorldModel::branch_of(const std::string& id) const {
  std::string cur = id;
  for (size_t guard = 0; guard <= nodes.size(); ++guard) {
    const Node* n = find(cur);
    if (!n || n->parent_id.empty() || n->parent_id == root_id) return cur;
    cur = n->parent_id;
  }
  return cur;
}

std::string WorldModel::new_node_id() const {
  int k = int(nodes.size());
  while (find("n" + std::to_string(k))) ++k;
  return "n" + std::to_string(k);
}

json WorldModel::to_json() const {
  json j;
  j["kernel_summary"] = kernel_summary;
  j["open_questions"] = open_questions;
  j["decision_tree"]["root_id"] = root_id;
  j["decision_tree"]["active_leaf_id"] = active_leaf_id;
  j["decision_tree"]["nodes"] = json::array();
  for (const auto& n : nodes) {
    json nj = node_to_json(n);
    nj["state"] = state_name(state(n));  // derived; ignored when read back
    j["decision_tree"]["nodes"].push_back(std::move(nj));
  }
  j["signals"] = signals;
  return j;
}

WorldModel WorldModel::from_json(const json& j) {
  if (!j.is_object()) throw Error("the world model must be a JSON object");
  WorldModel m;
  try {
    m.kernel_summary = j.value("kernel_summary", "");
    m.open_questions = j.value("open_questions", std::vector<std::string>{});
    const json tree = j.value("decision_tree", json::object());
    m.root_id = tree.value("root_id", "");
    m.active_leaf_id = tree.contains("active_leaf_id") && tree["active_leaf_id"].is_string()
                           ? tree["active_leaf_id"].get<std::string>()
                           : "";
    for (const auto& nj : tree.value("nodes", json::array())) m.nodes.push_back(node_from_json(nj));
    m.signals = j.value("signals", json::object());
  } catch (const json::exception& e) {
    throw Error(std::string("malformed world model: ") + e.what());
  }
  if (auto errors = m.validate(); !errors.empty()) throw Error("invalid world model: " + errors.front());
  return m;
}

std::vector<std::string> WorldModel::validate() const {
  std::vector<std::string> errors;
  std::set<std::string> ids;
  for (const auto& n : nodes) {
    if (n.node_id.empty()) errors.push_back("a node has no node_id");
    else if (!ids.insert(n.node_id).second) errors.push_back("duplicate node_id " + n.node_id);
    auto e = check_node_ranges(n);
    errors.insert(errors.end(), e.begin(), e.end());
  }
  const Node* root = find(root_id);
  if (!root) errors.push_back("root_id '" + root_id + "' names no node");
  else if (!root->parent_id.empty()) errors.push_back("the root must have no parent");
  for (const auto& n : nodes) {
    if (n.node_id == root_id) continue;
    if (n.parent_id.empty()) errors.push_back("node " + n.node_id + " has no parent_id (only the root may)");
    else if (!find(n.parent_id)) errors.push_back("node " + n.node_id + ": parent " + n.parent_id + " does not exist");
    // Walking up must reach the root.
    std::string cur = n.node_id;
    size_t steps = 0;
    while (!cur.empty() && cur != root_id && steps++ <= nodes.size()) {
      const Node* p = find(cur);
      cur = p ? p->parent_id : "";
    }
    if (cur != root_id) errors.push_back("node " + n.node_id + " is not connected to the root");
  }
  if (!active_leaf_id.empty() && !find(active_leaf_id)) errors.push_back("active_leaf_id names no node");
  return errors;
}

std::string WorldModel::compact_view(size_t max_nodes) const {
  std::string out = fmt::format("kernel: {}\n", kernel_summary);
  for (const auto& q : open_questions) out += "open question: " + q + "\n";
  auto line = [&](const Node& n) {
    std::string s = fmt::format("- {} [{}]", n.node_id, state_name(state(n)));
    if (n.too_hard) s += " [too hard]";
    if (!n.parent_id.empty()) s += " parent " + n.parent_id;
    if (n.action)
      s += fmt::format(": {} (difficulty {}, score {:.2f}, expected x{:.2f})", n.action->title, n.action->difficulty_1_to_5,
                       n.action->score_0_to_1, n.action->expected_vs_baseline_factor);
    else if (!n.choice.empty())
      s += ": " + n.choice;
    if (n.solution)
      s += fmt::format(" -> {} {} x{:.2f} vs seed{}", n.solution->candidate_id, n.solution->status, n.solution->speedup_vs_seed,
                       n.solution->significant ? "" : " (no significant gain over its parent)");
    if (n.carried_from) s += " [from " + n.carried_from->describe() + "]";
    return s + "\n";
  };
  // Closed nodes and the frontier first: they are what a proposer needs; open descendants after.
  std::vector<const Node*> ordered;
  for (const auto& n : nodes)
    if (state(n) == NodeState::closed) ordered.push_back(&n);
  for (const auto& n : nodes)
    if (state(n) == NodeState::frontier) ordered.push_back(&n);
  for (const auto& n : nodes)
    if (state(n) == NodeState::open) ordered.push_back(&n);
  for (size_t i = 0; i < ordered.size() && i < max_nodes; ++i) out += line(*ordered[i]);
  if (ordered.size() > max_nodes) out += fmt::format("(+{} more nodes)\n", ordered.size() - max_nodes);
  if (!active_leaf_id.empty()) out += "active: " + active_leaf_id + "\n";
  return out;
}

std::string EditResult::error_text() const {
  std::string s;
  for (const auto& e : errors) s += "- " + e + "\n";
  return s;
}

EditResult apply_edit_script(WorldModel& model, const json& script, int max_new_nodes) {
  EditResult result;
  auto fail = [&](std::string e) {
    result.ok = false;
    result.errors.push_back(std::move(e));
  };
  const json ops = script.is_object() ? script.value("ops", json()) : script;
  if (!ops.is_array()) {
    fail("an edit script is {\"ops\": [...]} (a list of update/insert/split/delete operations)");
    return result;
  }
  WorldModel m = model;  // all-or-nothing: edit a copy
  int new_nodes = 0;
  auto insert_node = [&](const json& nj, const std::string& parent, const std::string& where) -> bool {
    Node n;
    try {
      n = node_from_json(nj);
    } catch (const Error& e) {
      fail(where + ": " + e.what());
      return false;
    }
    if (n.node_id.empty()) n.node_id = m.new_node_id();
    if (m.find(n.node_id)) {
      fail(where + ": node_id " + n.node_id + " already exists");
      return false;
    }
    if (!n.action) {
      fail(where + ": a new node needs an action {title, description, difficulty_1_to_5, score_0_to_1, ...}");
      return false;
    }
    // Code owns outcomes: a proposer cannot insert solved or pre-judged nodes.
    n.parent_id = parent;
    n.solution.reset();
    n.attempts = n.cycles = 0;
    n.too_hard = false;
    n.carried_from.reset();
    for (auto& e : check_node_ranges(n)) fail(where + ": " + e);
    m.nodes.push_back(n);
    result.inserted.push_back(n.node_id);
    ++new_nodes;
    return true;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const json& op = ops[i];
    const std::string where = fmt::format("ops[{}]", i);
    if (!op.is_object() || !op.contains("op") || !op["op"].is_string()) {
      fail(where + ": each operation is an object with \"op\": update|insert|split|delete");
      continue;
    }
    const std::string kind = op["op"];
    const std::string id = op.value("node_id", json("")).is_string() ? op.value("node_id", "") : "";
    if (kind == "update") {
      Node* n = m.find(id);
      if (!n) { fail(where + ": update: no node " + id); continue; }
      const json fields = op.value("fields", json::object());
      if (!fields.is_object()) { fail(where + ": update: fields must be an object"); continue; }
      for (const char* owned : {"node_id", "parent_id", "solution", "attempts", "cycles", "too_hard", "carried_from"})
        if (fields.contains(owned)) fail(where + fmt::format(": update: {} is set by code, not by the proposer", owned));
      try {
        apply_fields(*n, fields);
      } catch (const json::exception& e) {
        fail(where + ": update: " + e.what());
        continue;
      }
      for (auto& e : check_node_ranges(*n)) fail(where + ": " + e);
    } else if (kind == "insert") {
      const std::string parent = op.value("parent_id", "");
      const Node* p = m.find(parent);
      if (!p) { fail(where + ": insert: parent_id " + parent + " does not exist"); continue; }
      if (p->too_hard) { fail(where + ": insert: parent " + parent + " was marked too hard"); continue; }
      insert_node(op.value("node", json()), parent, where + ": insert");
    } else if (kind == "split") {
      Node* n = m.find(id);
      if (!n) { fail(where + ": split: no node " + id); continue; }
      if (m.state(*n) == NodeState::closed || id == m.root_id) { fail(where + ": split: only an OPEN node can be split"); continue; }
      if (!m.children(id).empty()) { fail(where + ": split: node " + id + " has children"); continue; }
      const json into = op.value("into", json::array());
      if (!into.is_array() || into.size() < 2) { fail(where + ": split: \"into\" needs at least 2 nodes"); continue; }
      const std::string parent = n->parent_id;
      m.nodes.erase(std::remove_if(m.nodes.begin(), m.nodes.end(), [&](const Node& x) { return x.node_id == id; }),
                    m.nodes.end());
      if (m.active_leaf_id == id) m.active_leaf_id.clear();
      for (size_t k = 0; k < into.size(); ++k) insert_node(into[k], parent, fmt::format("{}: split into[{}]", where, k));
    } else if (kind == "delete") {
      const Node* n = m.find(id);
      if (!n) { fail(where + ": delete: no node " + id); continue; }
      if (id == m.root_id) { fail(where + ": delete: the root cannot be deleted"); continue; }
      if (n->solution || n->attempts > 0) { fail(where + ": delete: node " + id + " has evaluated attempts; it stays"); continue; }
      if (!m.children(id).empty()) { fail(where + ": delete: node " + id + " has children"); continue; }
      if (m.active_leaf_id == id) m.active_leaf_id.clear();
      m.nodes.erase(std::remove_if(m.nodes.begin(), m.nodes.end(), [&](const Node& x) { return x.node_id == id; }),
                    m.nodes.end());
    } else {
      fail(where + ": unknown op '" + kind + "' (update, insert, split or delete)");
    }
  }
  if (new_nodes > max_new_nodes) fail(fmt::format("at most {} new nodes per edit script ({} given)", max_new_nodes, new_nodes));
  if (result.ok)
    for (auto& e : m.validate()) fail(e);
  if (result.ok) model = std::move(m);
  else result.inserted.clear();
  return result;
}

CarryOver carry_over(const WorldModel& source, const std::string& backend, const std::string& run,
                     const std::function<std::optional<std::string>(const Node&)>& irrelevant) {
  CarryOver out;
  // Nodes come parents first (edit scripts append), so a node's kept ancestor is known when it is reached.
  std::map<std::string, std::string> kept_ancestor;  // node id -> nearest kept ancestor or itself ("" = the root)
  auto ancestor_of = [&](const std::string& parent) {
    const auto it = kept_ancestor.find(parent);
    return it == kept_ancestor.end() ? std::string() : it->second;
  };
  for (const Node& n : source.nodes) {
    if (n.node_id == source.root_id) continue;
    if (!n.action) {
      kept_ancestor[n.node_id] = ancestor_of(n.parent_id);
      continue;
    }
    if (const auto reason = irrelevant(n)) {
      out.dropped.push_back({n.node_id, n.action->title, *reason});
      kept_ancestor[n.node_id] = ancestor_of(n.parent_id);
      continue;
    }
    // The hypothesis as the other backend's planner judged it; outcomes and proposer data stay there.
    Node c = n;
    c.parent_id = ancestor_of(n.parent_id);
    c.solution.reset();
    c.attempts = c.cycles = 0;
    c.too_hard = false;
    c.payload = json::object();
    CarriedFrom from{backend, run, n.node_id};
    if (n.solution && n.solution->status == "passed") {
      from.status = "passed";
      from.candidate = n.solution->candidate_id;
      from.speedup_vs_seed = n.solution->speedup_vs_seed;
      const Node* parent = source.find(n.parent_id);
      const double before = parent && parent->solution && parent->solution->speedup_vs_seed > 0 ? parent->solution->speedup_vs_seed : 1.0;
      from.factor_over_parent = n.solution->speedup_vs_seed / before;
      from.significant = n.solution->significant;
    } else {
      from.status = n.too_hard ? "too_hard" : "untried";
    }
    c.notes = "carried from " + from.describe() + " (run " + run + ")" + (n.notes.empty() ? "" : "\nits notes there:\n" + n.notes);
    c.carried_from = from;
    kept_ancestor[n.node_id] = n.node_id;
    out.kept.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> graft(WorldModel& model, const std::vector<Node>& carried) {
  std::map<std::string, std::string> new_id;  // carried id -> id in `model`
  std::vector<std::string> added;
  for (const Node& c : carried) {
    if (!c.parent_id.empty() && !new_id.count(c.parent_id))
      throw Error(fmt::format("carried hypothesis {}: its parent {} is not carried before it", c.node_id, c.parent_id));
    Node n = c;
    n.node_id = model.new_node_id();
    n.parent_id = c.parent_id.empty() ? model.root_id : new_id[c.parent_id];
    n.solution.reset();
    n.attempts = n.cycles = 0;
    n.too_hard = false;
    new_id[c.node_id] = n.node_id;
    added.push_back(n.node_id);
    model.nodes.push_back(std::move(n));
  }
  return added;
}

Gain close_cycle(WorldModel& model, Node& node, const CycleOutcome& outcome) {
  if (!outcome.best && outcome.cut_off) {
    node.notes += fmt::format("{}cycle {}: no candidate evaluated before the search's budget ended; left open.",
                              node.notes.empty() ? "" : "\n", outcome.cycle);
    return {};
  }
  node.cycles++;
  Gain gain;
  std::string evidence;
  if (outcome.best) {
    node.solution = *outcome.best;
    const Node* parent = model.find(node.parent_id);
    const Solution seed{"seed", "passed", 1.0};
    const Solution& before = parent && parent->solution ? *parent->solution : seed;
    gain = measured_gain(outcome.best->speedup_vs_seed, outcome.best->spread, before.speedup_vs_seed, before.spread);
    node.solution->significant = gain.significant();
    evidence = gain.significant()
                   ? fmt::format("observed x{:.2f} ({:.2f}x vs seed)", gain.factor, outcome.best->speedup_vs_seed)
                   : fmt::format("no significant gain: x{:.2f} over the parent is within the timing noise (+-{:.0f}%) ({:.2f}x vs seed)",
                                 gain.factor, 100 * gain.noise, outcome.best->speedup_vs_seed);
  } else {
    node.too_hard = true;
    if (node.action) node.action->score_0_to_1 *= 0.5;
    evidence = "observed -";
  }
  node.notes += fmt::format("{}cycle {}: {} rounds, {} attempts, {}; predicted x{:.2f}, {}.", node.notes.empty() ? "" : "\n", outcome.cycle,
                            outcome.rounds, outcome.attempts, outcome.best ? "passed" : "nothing passed (too hard)",
                            outcome.predicted_factor, evidence);
  return gain;
}

}  // namespace ksearch::world_model
