#pragma once
// The repair step of `ksearch port --llm PROVIDER:MODEL` (docs/TRANSLATE.md): a model gets the CUDA
// source, the deterministic (partial) translation and what it could not translate, writes the Metal
// candidate, and the metal backend (metalsim) checks it; a failure goes back to the model with its
// message, up to a number of attempts. Uses the LLM proposer's client, code extraction and prompt
// files (prompts/system.md, prompts/port_repair.md).
#include <functional>
#include <optional>
#include <string>
#include <vector>

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

// `first_failure`: why the deterministic port did not pass (its evaluation), empty when it was not
// evaluated (an incomplete translation). `evaluate` checks one candidate.
Repair repair_port(const tasks::Task& task, backends::Backend& backend, const proposers::llm::LlmSettings& settings,
                   const std::string& cuda_source, const translate::Translation& translation, const std::string& first_failure,
                   int max_attempts, const std::function<evaluator::EvalReport(const std::string&)>& evaluate);

// Why a candidate failed, as the model sees it: the status, message and failing workloads.
std::string failure_text(const evaluator::EvalReport& report);

}  // namespace ksearch::cli
