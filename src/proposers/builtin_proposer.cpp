#include "proposers/builtin_proposer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "proposers/world_model.hpp"
#include "tasks/task.hpp"

using ksearch::tasks::Task;

using nlohmann::json;

namespace ksearch::proposers {

namespace {

const std::regex kKnobDecl(R"(//\s*ksearch:knob\s+([A-Za-z_]\w*)\s*=\s*(-?\d+)\s+in\s+\[([^\]]*)\])");

std::regex assignment_of(const std::string& name) { return std::regex("\\b" + name + R"(\s*=\s*-?\d+)"); }

std::string config_key(const json& payload) {
  return payload.value("family", "") + "|" + json_text(payload.value("knobs", json::object()));
}

// Effects of knob moves seen so far, read from the world model: knob-change nodes carry
// payload.changed (knob -> direction) and, once evaluated, a solution to compare with the parent's.
struct KnobHistory {
  std::map<std::string, double> effect;           // knob -> largest |log(speedup ratio)| observed
  std::map<std::pair<std::string, int>, double> direction;  // (knob, +1/-1) -> summed log ratio
  std::set<std::string> tried;                    // config keys already in the tree
};

KnobHistory history_of(const world_model::WorldModel& m) {
  KnobHistory h;
  for (const auto& n : m.nodes) {
    if (n.payload.contains("family")) h.tried.insert(config_key(n.payload));
    if (n.solution && n.solution->payload.contains("family")) h.tried.insert(config_key(n.solution->payload));
    const json changed = n.payload.value("changed", json::object());
    if (changed.empty()) continue;
    const world_model::Node* parent = m.find(n.parent_id);
    const bool failed = n.too_hard || (n.solution && n.solution->status != "passed");
    double log_ratio = 0;
    if (n.solution && !failed && parent && parent->solution && parent->solution->speedup_vs_seed > 0)
      log_ratio = std::log(std::max(n.solution->speedup_vs_seed, 1e-9) / parent->solution->speedup_vs_seed);
    else if (!failed)
      continue;  // not evaluated yet
    for (const auto& [knob, dir] : changed.items()) {
      if (failed) {
        h.direction[{knob, dir.get<int>()}] -= 1;  // a move that broke the kernel: avoid it
        continue;
      }
      h.effect[knob] = std::max(h.effect[knob], std::abs(log_ratio));
      h.direction[{knob, dir.get<int>()}] += log_ratio;
    }
  }
  return h;
}

class BuiltinProposer : public Proposer, public Planner {
 public:
  BuiltinProposer(const Task& task, const std::string& backend)
      : task_(task), backend_(backend), provider_(builtin::provider_for(backend)), families_(builtin_families(task, backend)) {
    if (seed_family()) seed_ = read_file(task.entry(backend).seed);
  }

  std::string name() const override { return "builtin"; }
  bool implements_hypothesis_text() const override { return false; }
  Planner* planner() override { return this; }

  std::optional<Answer<InitializeReply>> initialize(const InitializeRequest& request) override {
    world_model::WorldModel m;
    m.kernel_summary = request.task.description;
    m.open_questions = {"Which algorithm family suits this hardware best?", "Which knob values fit the caches and cores?"};
    world_model::Node root;
    root.node_id = m.root_id = "n0";
    root.decision = "baseline";
    root.choice = "the task's naive seed kernel";
    root.solution = world_model::Solution{"seed", "passed", 1.0, 0, 0, json::object()};
    m.nodes.push_back(root);
    if (seed_family()) {
      // The seed itself is the family's default configuration: start from its knob neighbours.
      const json payload = {{"family", kSeedKnobsFamily}, {"knobs", families_[0].defaults()}};
      m.nodes[0].payload = payload;
      m.nodes[0].solution->payload = payload;
      for (auto& n : expand(m, m.nodes[0], payload, 6)) {
        n.node_id = m.new_node_id();
        m.nodes.push_back(std::move(n));
      }
    } else {
      double max_gain = 1.0001;
      for (const auto& f : families_) max_gain = std::max(max_gain, f.expected_gain);
      for (const auto& f : families_) {
        world_model::Node n;
        n.node_id = m.new_node_id();
        n.parent_id = m.root_id;
        n.decision = "algorithm family";
        n.choice = f.name;
        const double prior = std::log(std::max(f.expected_gain, 1.0001)) / std::log(max_gain);
        n.action = world_model::Action{f.title, f.description, std::clamp(f.difficulty, 1, 5),
                                   std::clamp(0.3 + 0.6 * prior, 0.0, 1.0), std::max(f.expected_gain, 0.01),
                                   "built-in template family, default knobs"};
        n.overall_rating_0_to_10 = std::clamp(10 * (0.3 + 0.6 * prior), 0.0, 10.0);
        n.confidence_0_to_1 = 0.6;
        n.payload = {{"family", f.name}, {"knobs", f.defaults()}};
        m.nodes.push_back(std::move(n));
      }
    }
    return Answer<InitializeReply>{{m.to_json()}, {}};
  }

  std::optional<Answer<ProposeReply>> propose(const ProposeRequest& request) override {
    const auto m = world_model::WorldModel::from_json(request.world_model);
    // Expand the best evaluated configurations that still have untried neighbours.
    std::vector<const world_model::Node*> closed;
    for (const auto& n : m.nodes)
      if (n.solution && n.solution->status == "passed" && n.solution->payload.contains("family")) closed.push_back(&n);
    std::sort(closed.begin(), closed.end(), [](auto* a, auto* b) { return a->solution->speedup_vs_seed > b->solution->speedup_vs_seed; });
    ProposeReply reply;
    int budget = request.max_new_nodes;
    world_model::WorldModel scratch = m;
    for (const auto* n : closed) {
      if (budget <= 0) break;
      for (auto& child : expand(scratch, *n, n->solution->payload, budget)) {
        reply.edit_script["ops"].push_back({{"op", "insert"}, {"parent_id", n->node_id}, {"node", world_model::node_to_json(child)}});
        scratch.nodes.push_back(child);
        --budget;
      }
    }
    return Answer<ProposeReply>{reply, {}};
  }

  std::optional<Answer<CodeReply>> write_code(const CodeRequest& request) override {
    CodeReply reply;
    reply.exhausted = true;  // a configuration is one candidate: one round per cycle
    if (request.round_in_cycle > 0 || !request.node_payload.contains("family")) return Answer<CodeReply>{reply, {}};
    const json base = {{"family", request.node_payload["family"]}, {"knobs", request.node_payload.value("knobs", json::object())}};
    reply.candidates.push_back(candidate(base, request.action.value("title", "")));
    // Extra parallel slots: speculative one-step moves of knobs the action left alone.
    const builtin::Family* f = family(base["family"]);
    const json changed = request.node_payload.value("changed", json::object());
    for (const auto& knob : f ? f->knobs : std::vector<builtin::Knob>{}) {
      if (int(reply.candidates.size()) >= request.count) break;
      if (changed.contains(knob.name)) continue;
      for (int dir : {+1, -1}) {
        if (int(reply.candidates.size()) >= request.count) break;
        if (auto moved = move(*f, base, knob.name, dir))
          reply.candidates.push_back(candidate(*moved, fmt::format("{} + {} {}", request.action.value("title", ""), knob.name,
                                                                    (*moved)["knobs"][knob.name].get<int64_t>())));
      }
    }
    return Answer<CodeReply>{reply, {}};
  }

  std::optional<Answer<RefineReply>> refine(const RefineRequest& request) override {
    RefineReply reply;
    const auto& c = request.cycle;
    if (!c.passed) {
      reply.reflection = "built-in: no passing candidate for this configuration; not expanded further";
      return Answer<RefineReply>{reply, {}};
    }
    reply.reflection = fmt::format("built-in: predicted x{:.2f} over the parent, observed x{:.2f} ({:.2f}x vs seed)",
                                   c.predicted_factor, c.observed_factor, c.best_speedup);
    const auto m = world_model::WorldModel::from_json(request.world_model);
    const world_model::Node* node = m.find(c.node_id);
    if (!node || !c.best_payload.contains("family")) return Answer<RefineReply>{reply, {}};
    // Expand only configurations that beat their parent: a slower one's neighbours are reached
    // from the faster parent anyway.
    if (c.observed_factor < 1.0 && node->parent_id != m.root_id) return Answer<RefineReply>{reply, {}};
    for (auto& child : expand(m, *node, c.best_payload, request.max_new_nodes))
      reply.edit_script["ops"].push_back({{"op", "insert"}, {"parent_id", node->node_id}, {"node", world_model::node_to_json(child)}});
    return Answer<RefineReply>{reply, {}};
  }

 private:
  bool seed_family() const { return families_.size() == 1 && families_[0].name == kSeedKnobsFamily; }

  const builtin::Family* family(const std::string& name) const {
    for (const auto& f : families_)
      if (f.name == name) return &f;
    return nullptr;
  }

  std::optional<json> move(const builtin::Family& f, const json& config, const std::string& knob, int dir) const {
    for (const auto& k : f.knobs) {
      if (k.name != knob) continue;
      const int64_t cur = config["knobs"].value(knob, k.default_value);
      auto it = std::find(k.values.begin(), k.values.end(), cur);
      if (it == k.values.end()) return std::nullopt;
      const auto idx = (it - k.values.begin()) + dir;
      if (idx < 0 || idx >= int64_t(k.values.size())) return std::nullopt;
      json moved = config;
      moved["knobs"][knob] = k.values[size_t(idx)];
      return moved;
    }
    return std::nullopt;
  }

  CodeCandidate candidate(const json& payload, const std::string& note) const {
    builtin::KnobValues values;
    for (const auto& [k, v] : payload["knobs"].items()) values[k] = v.get<int64_t>();
    const std::string fam = payload["family"];
    CodeCandidate c;
    c.source = fam == kSeedKnobsFamily ? render_seed_knobs(seed_, values) : provider_->render(task_, fam, values);
    c.note = note;
    c.payload = payload;
    return c;
  }

  // Up to `limit` knob-change children of `node`, whose realized configuration is `config`:
  // single-knob moves of the most effective knobs (observed effect, else catalog order), in their
  // better-looking direction first, then one two-knob move combining the best two directions.
  std::vector<world_model::Node> expand(const world_model::WorldModel& m, const world_model::Node& node, const json& config, int limit) const {
    std::vector<world_model::Node> out;
    const builtin::Family* f = family(config.value("family", ""));
    if (!f || limit <= 0) return out;
    const KnobHistory h = history_of(m);
    struct Move { std::string knob; int dir; double score; };
    std::vector<Move> moves;
    for (size_t rank = 0; rank < f->knobs.size(); ++rank) {
      const auto& k = f->knobs[rank];
      const auto eff = h.effect.find(k.name);
      const double importance = eff != h.effect.end() ? std::min(1.0, 0.2 + 2 * eff->second) : 0.6 / double(rank + 1);
      for (int dir : {+1, -1}) {
        if (!move(*f, config, k.name, dir)) continue;
        const auto d = h.direction.find({k.name, dir});
        const double trend = d == h.direction.end() ? 0 : std::clamp(d->second * 2, -0.4, 0.2);
        moves.push_back({k.name, dir, std::clamp(0.45 + 0.35 * importance + trend, 0.05, 0.95)});
      }
    }
    std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.score > b.score; });
    std::set<std::string> tried = h.tried;
    auto add = [&](const json& moved, const json& changed, double score, const std::string& what) {
      if (int(out.size()) >= limit || !tried.insert(config_key(moved)).second) return;
      world_model::Node n;
      n.node_id = "";  // assigned when the edit script is applied
      n.parent_id = node.node_id;
      n.decision = "knob change";
      n.choice = what;
      n.action = world_model::Action{"set " + what, fmt::format("{} with {}", f->title, what), 1, score, 1.1,
                                 "neighbouring knob value; knobs with the largest observed effect first"};
      n.overall_rating_0_to_10 = 10 * score;
      n.confidence_0_to_1 = 0.4;
      n.payload = moved;
      n.payload["changed"] = changed;
      out.push_back(std::move(n));
    };
    auto describe = [](const json& moved, const std::string& knob) {
      return fmt::format("{}={}", knob, moved["knobs"][knob].get<int64_t>());
    };
    for (const auto& mv : moves) {
      if (int(out.size()) >= limit - 1 && moves.size() > 1) break;  // keep a slot for the combined move
      json moved = *move(*f, config, mv.knob, mv.dir);
      add(moved, {{mv.knob, mv.dir}}, mv.score, describe(moved, mv.knob));
    }
    for (size_t i = 0; i < moves.size(); ++i)
      for (size_t j = i + 1; j < moves.size(); ++j) {
        if (moves[i].knob == moves[j].knob) continue;
        json moved = *move(*f, config, moves[i].knob, moves[i].dir);
        auto twice = move(*f, moved, moves[j].knob, moves[j].dir);
        if (!twice) continue;
        add(*twice, {{moves[i].knob, moves[i].dir}, {moves[j].knob, moves[j].dir}},
            std::max(0.05, 0.5 * (moves[i].score + moves[j].score) - 0.05),
            describe(*twice, moves[i].knob) + ", " + describe(*twice, moves[j].knob));
        i = j = moves.size();  // one combined move is enough
      }
    for (const auto& mv : moves) {  // fill remaining slots with the rest of the single moves
      json moved = *move(*f, config, mv.knob, mv.dir);
      add(moved, {{mv.knob, mv.dir}}, mv.score, describe(moved, mv.knob));
    }
    return out;
  }

  const Task& task_;
  std::string backend_;
  std::shared_ptr<builtin::TemplateProvider> provider_;
  std::vector<builtin::Family> families_;
  std::string seed_;
};

}  // namespace

std::vector<builtin::Family> builtin_families(const Task& task, const std::string& backend) {
  auto families = builtin::families_for(task, backend);
  if (!families.empty()) return families;
  auto knobs = parse_seed_knobs(read_file(task.entry(backend).seed));
  if (knobs.empty())
    throw Error(fmt::format(
        "the built-in proposer has no template families for task '{}' on backend '{}', and the task's seed declares "
        "no `// ksearch:knob` knobs: only a model or agent proposer can optimize this task (see docs/SEARCH.md)",
        task.name, backend));
  builtin::Family f;
  f.name = kSeedKnobsFamily;
  f.title = "tune the seed's declared knobs";
  f.description = "The seed kernel with its `// ksearch:knob` values changed.";
  f.difficulty = 1;
  f.expected_gain = 1.2;
  f.knobs = std::move(knobs);
  return {std::move(f)};
}

std::vector<builtin::Knob> parse_seed_knobs(const std::string& seed) {
  std::vector<builtin::Knob> knobs;
  std::istringstream in(seed);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find("ksearch:knob") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_search(line, m, kKnobDecl))
      throw Error(fmt::format("seed line {}: malformed knob; expected `// ksearch:knob NAME = V in [a, b, c]`", number));
    builtin::Knob k;
    k.name = m[1];
    k.default_value = std::stoll(m[2]);
    std::string list = m[3];
    std::replace(list.begin(), list.end(), ',', ' ');
    std::istringstream values(list);
    for (std::string v; values >> v;) {
      try {
        k.values.push_back(std::stoll(v));
      } catch (const std::exception&) {
        throw Error(fmt::format("seed line {}: knob {}: '{}' is not an integer", number, k.name, v));
      }
    }
    if (std::find(k.values.begin(), k.values.end(), k.default_value) == k.values.end())
      throw Error(fmt::format("seed line {}: knob {}: default {} is not among the allowed values", number, k.name, k.default_value));
    const std::string code = line.substr(0, size_t(m.position(0)));
    if (!std::regex_search(code, assignment_of(k.name)))
      throw Error(fmt::format("seed line {}: knob {}: the code before the comment must contain `{} = {}`", number, k.name,
                              k.name, k.default_value));
    k.description = "declared in the seed, line " + std::to_string(number);
    knobs.push_back(std::move(k));
  }
  return knobs;
}

std::string render_seed_knobs(const std::string& seed, const builtin::KnobValues& values) {
  std::istringstream in(seed);
  std::string out, line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kKnobDecl)) {
      const std::string name = m[1];
      auto it = values.find(name);
      if (it != values.end()) {
        const size_t at = size_t(m.position(0));
        line = std::regex_replace(line.substr(0, at), assignment_of(name), name + " = " + std::to_string(it->second),
                                  std::regex_constants::format_first_only) +
               line.substr(at);
      }
    }
    out += line + "\n";
  }
  return out;
}

std::unique_ptr<Proposer> make_builtin_proposer(const ProposerEnv& env, const json&) {
  if (!env.task || !env.backend) throw Error("the built-in proposer needs a task and a backend");
  return std::make_unique<BuiltinProposer>(*env.task, env.backend->name());
}

}  // namespace ksearch::proposers
