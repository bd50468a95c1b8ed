#pragma once
// Prompts of the LLM and agent proposers: template files under prompts/ (syntax in
// prompts/README.md) filled from the planner's requests, and the parsing of answers back into
// replies. The agent mode (`ksearch agent next/submit`) uses the same two halves, so an API model
// and an external agent see identical prompts and are held to identical checks.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proposers/protocol.hpp"

namespace ksearch::backends {
class Backend;
struct RuleSet;
}  // namespace ksearch::backends

namespace ksearch::proposers::llm {

using Vars = std::map<std::string, std::string>;

// Renders `text`: {{name}}, {{#name}}..{{/name}} (if non-empty), {{^name}}..{{/name}} (if empty),
// {{> partial}}, {{! comment}}. Throws Error for an unknown placeholder or an unclosed section.
std::string render_template(std::string_view text, const Vars& vars,
                            const std::function<std::string(const std::string&)>& partial = {});

struct Prompt {
  std::string system, user;
};

// What the prompts need from the backend besides the request.
struct BackendInfo {
  std::string language;              // code fence language: cpp, cuda, metal
  std::string rules;                 // RuleSet::describe(), shown in every code prompt
  const backends::RuleSet* checks = nullptr;  // the same rules, machine-checked on every answer
  std::string template_example;      // a built-in template for the task, rendered (empty when none)
  static BackendInfo of(backends::Backend& backend);
};

class PromptLibrary {
 public:
  // $KSEARCH_PROMPTS_DIR, else <source>/prompts.
  static std::filesystem::path default_dir();
  explicit PromptLibrary(std::filesystem::path dir = default_dir());

  const std::filesystem::path& dir() const { return dir_; }
  // One template (name without .md) with the placeholders; throws Error.
  std::string render(const std::string& name, const Vars& vars) const;

  Prompt initialize(const proposers::InitializeRequest& r, const BackendInfo& b) const;
  Prompt propose(const proposers::ProposeRequest& r, const BackendInfo& b) const;
  Prompt write_code(const proposers::CodeRequest& r, const BackendInfo& b) const;  // debug.md or improve.md
  Prompt refine(const proposers::RefineRequest& r, const BackendInfo& b) const;
  // A pending request as stored in the run store (role name + request JSON).
  Prompt for_request(const std::string& role, const nlohmann::json& request, const BackendInfo& b) const;
  // The follow-up message after a rejected answer.
  std::string reask(const std::string& errors) const;

 private:
  std::string system(const proposers::TaskBrief& t, const BackendInfo& b) const;
  std::filesystem::path dir_;
};

// The placeholders every request shares (task, entry, hardware profile, rules, seed).
Vars task_vars(const proposers::TaskBrief& t, const BackendInfo& b);
// The cycle's attempts, as the code prompts show them.
std::string format_feedback(const std::vector<proposers::Feedback>& feedback);

// Answers parsed back into replies. `errors` (a bullet list) is empty when the reply is usable;
// otherwise it goes back to the model in reask.md.
template <class Reply>
struct Parsed {
  Reply reply;
  std::string errors;
  bool ok() const { return errors.empty(); }
};
Parsed<proposers::InitializeReply> parse_initialize(std::string_view text);
Parsed<proposers::ProposeReply> parse_edit_script(std::string_view text, const nlohmann::json& world_model, int max_new_nodes);
Parsed<proposers::RefineReply> parse_refine(std::string_view text, const nlohmann::json& world_model, int max_new_nodes);
// One candidate: the code block in `language` (fences, tags, prose and several files survive), its
// NOTE line, checked against the backend's rules so that violations never cost a compile.
Parsed<proposers::CodeCandidate> parse_code(std::string_view text, const std::string& language, const backends::RuleSet& rules);
// A code answer: one candidate as parse_code reads it (a line `EXHAUSTED` before the code ends the
// action's cycle after this round), or the JSON {"candidates": [{"source", "note"}], "exhausted"}.
Parsed<proposers::CodeReply> parse_code_reply(std::string_view text, const std::string& language, const backends::RuleSet& rules);
// Any role, from the pending request (agent submit): the reply's JSON, or errors.
Parsed<nlohmann::json> parse_answer(const std::string& role, std::string_view text, const nlohmann::json& request,
                                    const BackendInfo& b);

}  // namespace ksearch::proposers::llm
