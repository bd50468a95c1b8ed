#include "proposers/llm/prompts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <regex>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "llm/extract.hpp"
#include "proposers/world_model.hpp"

using ksearch::backends::Backend;
using ksearch::backends::HardwareProfile;
using ksearch::backends::RuleSet;
using ksearch::backends::RuleViolation;

using nlohmann::json;

namespace ksearch::proposers::llm {

namespace {

// The position of the {{/name}} closing the section opened just before `from` (sections of the
// same name may nest).
size_t find_close(std::string_view text, const std::string& name, size_t from) {
  int depth = 1;
  size_t pos = from;
  while ((pos = text.find("{{", pos)) != std::string_view::npos) {
    const size_t end = text.find("}}", pos);
    if (end == std::string_view::npos) break;
    const std::string tag = trimmed(text.substr(pos + 2, end - pos - 2));
    if (tag.empty()) {
      pos = end + 2;
      continue;
    }
    if ((tag[0] == '#' || tag[0] == '^') && trimmed(tag.substr(1)) == name) ++depth;
    if (tag[0] == '/' && trimmed(tag.substr(1)) == name && --depth == 0) return pos;
    pos = end + 2;
  }
  throw Error("prompt template: section '" + name + "' is not closed with {{/" + name + "}}");
}

}  // namespace

std::string render_template(std::string_view text, const Vars& vars,
                            const std::function<std::string(const std::string&)>& partial) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    const size_t close = text.find("}}", open);
    if (close == std::string_view::npos) throw Error("prompt template: '{{' without '}}'");
    const std::string tag = trimmed(text.substr(open + 2, close - open - 2));
    pos = close + 2;
    if (tag.empty()) throw Error("prompt template: empty {{}}");
    const char kind = tag[0];
    const std::string name = kind == '#' || kind == '^' || kind == '/' || kind == '>' || kind == '!' ? trimmed(tag.substr(1)) : tag;
    if (kind == '!') continue;
    if (kind == '/') throw Error("prompt template: {{/" + name + "}} without an opening section");
    if (kind == '>') {
      if (!partial) throw Error("prompt template: partial '" + name + "' cannot be loaded here");
      out += render_template(partial(name), vars, partial);
      continue;
    }
    auto it = vars.find(name);
    if (it == vars.end()) throw Error("prompt template: unknown placeholder '" + name + "'");
    if (kind == '#' || kind == '^') {
      const size_t end = find_close(text, name, pos);
      if ((kind == '#') == !it->second.empty()) out += render_template(text.substr(pos, end - pos), vars, partial);
      pos = text.find("}}", end) + 2;
      continue;
    }
    out += it->second;
  }
  out.append(text.substr(pos));
  return out;
}

BackendInfo BackendInfo::of(Backend& backend) {
  BackendInfo b;
  b.language = backend.code_language();
  const HardwareProfile& profile = backend.profile();
  b.rules = profile.rules.describe();
  b.checks = &profile.rules;
  return b;
}

std::filesystem::path PromptLibrary::default_dir() {
  if (const char* env = std::getenv("KSEARCH_PROMPTS_DIR"); env && *env) return env;
  return data_path("prompts");
}

PromptLibrary::PromptLibrary(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (!std::filesystem::is_directory(dir_)) throw Error("prompt folder " + dir_.string() + " does not exist");
}

std::string PromptLibrary::render(const std::string& name, const Vars& vars) const {
  const auto load = [this](const std::string& n) { return read_file(dir_ / (n + ".md")); };
  try {
    return trimmed(render_template(load(name), vars, load)) + "\n";
  } catch (const Error& e) {
    throw Error(fmt::format("{}/{}.md: {}", dir_.string(), name, e.what()));
  }
}

Vars task_vars(const proposers::TaskBrief& t, const BackendInfo& b) {
  std::string spec = t.description;
  if (!t.workloads.empty()) {
    spec += "\n\nVisible workloads (correctness is checked on each, speed is their geometric mean):";
    for (const auto& w : t.workloads) spec += "\n- " + w;
  }
  return {{"task_name", t.task},         {"backend", t.backend},           {"task_spec", trimmed(spec)},
          {"entry", trimmed(t.entry)},      {"hardware_profile", trimmed(t.hardware)}, {"rules", trimmed(b.rules)},
          {"language", b.language},      {"seed_code", trimmed(t.seed_source)}, {"template_example", trimmed(b.template_example)}};
}

std::string PromptLibrary::system(const proposers::TaskBrief& t, const BackendInfo& b) const { return render("system", task_vars(t, b)); }

namespace {

// The world model as the planning prompts show it: proposer-private payloads dropped.
std::string world_json(const json& model) {
  json m = model;
  if (m.contains("decision_tree") && m["decision_tree"].contains("nodes"))
    for (auto& n : m["decision_tree"]["nodes"]) {
      n.erase("payload");
      if (n["solution"].is_object()) n["solution"].erase("payload");
    }
  return json_text(m, 1);
}

std::string action_text(const json& a) {
  if (!a.is_object() || a.empty()) return "(no action: improve the code)";
  std::string s = a.value("title", "");
  if (auto d = a.value("description", ""); !d.empty()) s += "\n" + d;
  s += fmt::format("\nDifficulty {}/5; predicted speedup over the starting point: x{:.2f}.", a.value("difficulty_1_to_5", 0),
                   a.value("expected_vs_baseline_factor", 1.0));
  if (auto r = a.value("rationale", ""); !r.empty()) s += "\nRationale: " + r;
  return s;
}

std::string cycle_text(const proposers::CycleSummary& c, const json& world_model) {
  std::string title;
  try {
    const auto m = world_model::WorldModel::from_json(world_model);
    if (const auto* n = m.find(c.node_id); n && n->action) title = " (" + n->action->title + ")";
  } catch (const Error&) {
  }
  std::string s = fmt::format("Node {}{}: {} rounds, {} candidates evaluated.\n", c.node_id, title, c.rounds, c.attempts);
  if (c.passed)
    s += fmt::format("Passed. Best: c{} at {:.2f}x vs the seed; the starting point was {:.2f}x.\n"
                     "Predicted gain x{:.2f}, observed x{:.2f}.",
                     c.best_candidate, c.best_speedup, c.parent_speedup, c.predicted_factor, c.observed_factor);
  else
    s += fmt::format("Nothing passed: the node is marked too hard. Predicted gain was x{:.2f}.", c.predicted_factor);
  return s;
}

// "small: passed, median 0.0123 ms (spread 4%), seed 0.0456 ms, 3.71x vs seed, 12.3% of the roofline"
std::string workload_line(const proposers::WorkloadFeedback& w) {
  std::string s = w.name + ": " + w.status;
  if (w.median_ms > 0) {
    s += fmt::format(", median {:.4g} ms (spread {:.0f}%)", w.median_ms, 100 * w.spread);
    if (w.seed_ms > 0) s += fmt::format(", seed {:.4g} ms, {:.2f}x vs seed", w.seed_ms, w.speedup_vs_seed);
    if (w.roofline_fraction > 0) s += fmt::format(", {:.1f}% of the roofline", 100 * w.roofline_fraction);
  }
  if (!w.message.empty()) s += " - " + w.message;
  return s;
}

// Rejected after its results were checked and timed: correct, but measured faster than possible.
bool rejected_for_timing(const proposers::Feedback& f) {
  return f.status == "rejected" &&
         std::any_of(f.workloads.begin(), f.workloads.end(), [](const auto& w) { return w.status == "rejected" && w.median_ms > 0; });
}

}  // namespace

std::string format_feedback(const std::vector<proposers::Feedback>& feedback) {
  std::string s;
  for (const auto& f : feedback) {
    s += fmt::format("- c{}: {}", f.candidate_id, f.status);
    if (!f.message.empty()) s += " - " + f.message;
    s += "\n";
    if (f.median_ms > 0)
      s += fmt::format("  overall (geometric mean): {:.4f} ms, {:.2f}x vs seed, {:.1f}% of the roofline\n", f.median_ms,
                       f.speedup_vs_seed, 100 * f.roofline_fraction);
    for (const auto& w : f.workloads) s += "  " + workload_line(w) + "\n";
    if (f.status == "wrong_answer" && !f.failing_workload.empty())
      s += fmt::format("  first failing workload: {} (max abs error {:.3g}, max rel error {:.3g})\n", f.failing_workload,
                       f.max_abs_err, f.max_rel_err);
    if (!f.log_excerpt.empty() && f.status != "passed") s += "  log:\n  ```\n" + trimmed(f.log_excerpt) + "\n  ```\n";
  }
  return trimmed(s);
}

Prompt PromptLibrary::initialize(const proposers::InitializeRequest& r, const BackendInfo& b) const {
  return {system(r.task, b), render("initialize", task_vars(r.task, b))};
}

Prompt PromptLibrary::propose(const proposers::ProposeRequest& r, const BackendInfo& b) const {
  Vars v = task_vars(r.task, b);
  v["world_model"] = world_json(r.world_model);
  v["reason"] = r.reason;
  v["previous_errors"] = trimmed(r.previous_errors);
  v["max_new_nodes"] = std::to_string(r.max_new_nodes);
  return {system(r.task, b), render("propose", v)};
}

Prompt PromptLibrary::write_code(const proposers::CodeRequest& r, const BackendInfo& b) const {
  Vars v = task_vars(r.task, b);
  v["world_model"] = trimmed(r.world_view);
  v["node_id"] = r.node_id;
  v["action"] = action_text(r.action);
  v["parent_label"] = r.parent_candidate ? fmt::format("candidate c{}", r.parent_candidate) : "the seed";
  v["parent_code"] = trimmed(r.parent_source);
  v["feedback"] = format_feedback(r.feedback);
  // What went wrong, so that the prompt's advice fits it: a kernel rejected for an impossible time
  // is not told to "fix correctness".
  const bool timing = std::any_of(r.feedback.begin(), r.feedback.end(), rejected_for_timing);
  const bool failed = std::any_of(r.feedback.begin(), r.feedback.end(),
                                  [](const auto& f) { return f.status != "passed" && !rejected_for_timing(f); });
  v["timing_rejected"] = timing ? "yes" : "";
  v["correctness_failed"] = failed ? "yes" : "";
  v["best_speedup"] = fmt::format("{:.2f}", r.best_speedup);
  v["round_in_cycle"] = std::to_string(r.round_in_cycle);
  v["count"] = std::to_string(r.count);
  return {system(r.task, b), render(r.mode == "debug" ? "debug" : "improve", v)};
}

Prompt PromptLibrary::refine(const proposers::RefineRequest& r, const BackendInfo& b) const {
  Vars v = task_vars(r.task, b);
  v["world_model"] = world_json(r.world_model);
  v["cycle"] = cycle_text(r.cycle, r.world_model);
  v["previous_errors"] = trimmed(r.previous_errors);
  v["max_new_nodes"] = std::to_string(r.max_new_nodes);
  return {system(r.task, b), render("refine", v)};
}

Prompt PromptLibrary::for_request(const std::string& role, const json& request, const BackendInfo& b) const {
  switch (proposers::parse_role(role)) {
    case proposers::Role::initialize: return initialize(proposers::InitializeRequest::from_json(request), b);
    case proposers::Role::propose: return propose(proposers::ProposeRequest::from_json(request), b);
    case proposers::Role::write_code: return write_code(proposers::CodeRequest::from_json(request), b);
    case proposers::Role::refine: return refine(proposers::RefineRequest::from_json(request), b);
  }
  throw Error("unknown role " + role);
}

std::string PromptLibrary::reask(const std::string& errors) const { return render("reask", {{"errors", trimmed(errors)}}); }

// ---- answers ----

namespace {

std::string bullet(const std::string& s) { return "- " + s + "\n"; }

// The answer's JSON: the whole text, a json (or untagged) fence holding an object or a list, else
// the first object in the text.
std::optional<json> answer_json(std::string_view text, std::string& errors) {
  if (json whole = json::parse(text, nullptr, false); whole.is_object() || whole.is_array()) return whole;
  for (const auto& block : ksearch::llm::extract_code_blocks(text)) {
    if (block.language && *block.language != "json") continue;
    if (json j = json::parse(block.code, nullptr, false); j.is_object() || j.is_array()) return j;
  }
  auto j = ksearch::llm::extract_json(text);
  if (!j) errors += bullet("no JSON object found: answer with one complete JSON object in a ```json fence");
  return j;
}

// {"ops": [...]}, a bare list of ops, or the script wrapped in "edit_script".
json script_of(const json& j) {
  if (j.is_array()) return {{"ops", j}};
  if (j.is_object() && j.contains("edit_script")) return script_of(j["edit_script"]);
  if (j.is_object() && j.contains("ops")) return {{"ops", j["ops"]}};
  return j;
}

std::string check_script(const json& script, const json& world_model, int max_new_nodes) {
  world_model::WorldModel m;
  try {
    m = world_model::WorldModel::from_json(world_model);
  } catch (const Error& e) {
    return {};  // nothing to check against; the search validates it anyway
  }
  return world_model::apply_edit_script(m, script, max_new_nodes).error_text();
}

std::string violations_text(const std::vector<RuleViolation>& vs) {
  std::string s;
  for (const auto& v : vs) s += bullet(fmt::format("rule {} violated{}: {}", v.rule, v.line ? fmt::format(" at line {}", v.line) : "", v.message));
  return s;
}

}  // namespace

Parsed<proposers::InitializeReply> parse_initialize(std::string_view text) {
  Parsed<proposers::InitializeReply> p;
  auto j = answer_json(text, p.errors);
  if (!j) return p;
  if (j->contains("world_model") && (*j)["world_model"].is_object()) j = (*j)["world_model"];
  world_model::WorldModel m;
  try {
    m = world_model::WorldModel::from_json(*j);
  } catch (const Error& e) {
    p.errors += bullet(e.what());
    // from_json stops at the first structural error: list them all when the JSON is readable.
    return p;
  }
  // Code owns outcomes: the model cannot pre-solve or pre-judge nodes.
  for (auto& n : m.nodes) {
    if (n.node_id != m.root_id) n.solution.reset();
    n.attempts = n.cycles = 0;
    n.too_hard = false;
    n.carried_from.reset();  // evidence from another backend's run is added by code (run --from)
  }
  m.active_leaf_id.clear();
  if (m.frontier().empty()) p.errors += bullet("no hypothesis to try: add children of the root, each with an action");
  p.reply.world_model = m.to_json();
  return p;
}

Parsed<proposers::ProposeReply> parse_edit_script(std::string_view text, const json& world_model, int max_new_nodes) {
  Parsed<proposers::ProposeReply> p;
  auto j = answer_json(text, p.errors);
  if (!j) return p;
  p.reply.edit_script = script_of(*j);
  p.errors += check_script(p.reply.edit_script, world_model, max_new_nodes);
  return p;
}

Parsed<proposers::RefineReply> parse_refine(std::string_view text, const json& world_model, int max_new_nodes) {
  Parsed<proposers::RefineReply> p;
  auto j = answer_json(text, p.errors);
  if (!j) return p;
  if (j->is_object() && (*j).contains("reflection") && (*j)["reflection"].is_string()) p.reply.reflection = (*j)["reflection"];
  p.reply.edit_script = j->is_object() && !j->contains("ops") && !j->contains("edit_script") ? json{{"ops", json::array()}} : script_of(*j);
  p.errors += check_script(p.reply.edit_script, world_model, max_new_nodes);
  return p;
}

Parsed<proposers::CodeCandidate> parse_code(std::string_view text, const std::string& language, const RuleSet& rules) {
  Parsed<proposers::CodeCandidate> p;
  const auto block = ksearch::llm::extract_code(text, {language});
  if (!block || trimmed(block->code).empty()) {
    p.errors = bullet(fmt::format("no code found: put the complete source file in one ```{} fence", language));
    return p;
  }
  if (!block->complete) {
    p.errors = bullet("the code block is cut off (no closing fence): answer with a shorter, complete file");
    return p;
  }
  p.reply.source = block->code;
  if (p.reply.source.back() != '\n') p.reply.source += '\n';
  static const std::regex note(R"((^|\n)[ \t*_]*NOTE[*_]*:[ \t]*([^\n]+))", std::regex::icase);
  std::smatch m;
  const std::string s(text.substr(0, text.find("```")));
  if (std::regex_search(s, m, note)) p.reply.note = trimmed(m[2].str());
  p.errors = violations_text(rules.check(p.reply.source));
  return p;
}

Parsed<proposers::CodeReply> parse_code_reply(std::string_view text, const std::string& language, const RuleSet& rules) {
  Parsed<proposers::CodeReply> p;
  const std::string t = trimmed(text);
  // A CodeReply object ({"candidates": [...], "exhausted": ...}) gives several candidates at once.
  if (json j = t.starts_with("{") ? json::parse(t, nullptr, false) : json(); j.is_object() && j.contains("candidates")) {
    try {
      p.reply = proposers::CodeReply::from_json(j);
    } catch (const std::exception& e) {
      p.errors = bullet(std::string("malformed reply: ") + e.what());
      return p;
    }
    for (size_t i = 0; i < p.reply.candidates.size(); ++i)
      if (auto v = violations_text(rules.check(p.reply.candidates[i].source)); !v.empty())
        p.errors += fmt::format("candidate {}:\n{}", i, v);
    if (p.reply.candidates.empty() && !p.reply.exhausted)
      p.errors += bullet("no candidates (to end this action's cycle without code, answer {\"candidates\": [], \"exhausted\": true})");
    return p;
  }
  auto c = parse_code(text, language, rules);
  p.errors = c.errors;
  p.reply.candidates.push_back(std::move(c.reply));
  // A line EXHAUSTED before the code: nothing more to try for this action after this candidate.
  static const std::regex exhausted(R"((^|\n)[ \t*_]*EXHAUSTED\b)");
  const std::string before_code(text.substr(0, text.find("```")));
  p.reply.exhausted = std::regex_search(before_code, exhausted);
  return p;
}

Parsed<json> parse_answer(const std::string& role, std::string_view text, const json& request, const BackendInfo& b) {
  Parsed<json> out;
  auto take = [&](const auto& parsed) {
    out.errors = parsed.errors;
    if (parsed.ok()) out.reply = parsed.reply.to_json();
  };
  switch (proposers::parse_role(role)) {
    case proposers::Role::initialize: take(parse_initialize(text)); break;
    case proposers::Role::propose:
      take(parse_edit_script(text, request.value("world_model", json()), request.value("max_new_nodes", 3)));
      break;
    case proposers::Role::refine:
      take(parse_refine(text, request.value("world_model", json()), request.value("max_new_nodes", 3)));
      break;
    case proposers::Role::write_code: {
      static const RuleSet none;
      const RuleSet& rules = b.checks ? *b.checks : none;
      const std::string t = trimmed(text);
      if (!t.empty() && !t.starts_with("{") && !ksearch::llm::extract_code(text, {b.language})) {
        // A plain source file (`ksearch agent submit DIR kernel.cpp`).
        Parsed<proposers::CodeReply> plain;
        plain.reply.candidates.push_back({t + "\n", "", json::object()});
        plain.errors = violations_text(rules.check(plain.reply.candidates[0].source));
        take(plain);
      } else {
        take(parse_code_reply(text, b.language, rules));
      }
      break;
    }
  }
  return out;
}

}  // namespace ksearch::proposers::llm
