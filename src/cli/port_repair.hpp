#pragma once
// The repair step of `ksearch port` (docs/TRANSLATE.md): a proposer gets the CUDA source, the
// deterministic (partial) translation and what it could not translate, writes the Metal candidate,
// and the metal backend (metalsim) checks it; a failure goes back with its message, up to a number of
// attempts. The proposer is a model (`--llm`, through a provider client: repair_port) or an external
// agent (`--agent`: the request waits in a port folder for `ksearch agent next/submit`, cli/port_agent).
// Both see the same prompts (prompts/system.md, prompts/port_repair.md) and answer the same way.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/llm/llm_proposer.hpp"
#include "tasks/task.hpp"
#include "translate/translate.hpp"

namespace ksearch::cli {

struct RepairAttempt {
  std::string candidate;  // empty when the answer had no metal code
  std::string status;     // the evaluator's status, or "no_code"
  std::string message;
};

struct Repair {
  std::string model;  // the client's description
  std::vector<RepairAttempt> attempts;
  std::optional<evaluator::EvalReport> report;  // of the last evaluated attempt
  bool passed() const { return report && report->status == Status::passed; }
};

// What the next repair prompt shows; kept between the attempts (in the port folder for an agent).
struct RepairConversation {
  std::string cuda_source;
  std::string partial;       // the deterministic translation ("" when none was written)
  std::string untranslated;  // "- file:line: construct: reason" lines, or why a complete port failed
  std::string previous;      // the last answer's candidate, when it failed
  std::string failure;       // why it failed (failure_text)

  // `first_failure`: why the deterministic port did not pass (its evaluation), empty when it was not
  // evaluated (an incomplete translation).
  static RepairConversation start(const std::string& cuda_source, const translate::Translation& translation,
                                  const std::string& first_failure);
  nlohmann::json to_json() const;
  static RepairConversation from_json(const nlohmann::json& j);
};

struct RepairPrompt {
  std::string system, user;
};
// The prompt of the next attempt. `prompts_dir` empty: the installed prompts.
RepairPrompt repair_prompt(const tasks::Task& task, backends::Backend& backend, const RepairConversation& conversation,
                           const std::string& prompts_dir = "");

// The metal candidate of an answer (its ```metal fence, or the longest code block), "" when it has none.
std::string answered_candidate(const std::string& answer);

// Asks the model up to `max_attempts` times; `evaluate` checks one candidate.
Repair repair_port(const tasks::Task& task, backends::Backend& backend, const proposers::llm::LlmSettings& settings,
                   RepairConversation conversation, int max_attempts,
                   const std::function<evaluator::EvalReport(const std::string&)>& evaluate);

// A port checked by the metal backend against the task's reference (correctness only: no timing, no seed).
evaluator::EvalReport check_port(const tasks::Task& task, backends::Backend& backend, const std::string& candidate);

// Why a candidate failed, as the proposer sees it: the status, message and failing workloads.
std::string failure_text(const evaluator::EvalReport& report);

}  // namespace ksearch::cli
