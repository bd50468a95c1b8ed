#include "cli/port_repair.hpp"

#include <fmt/format.h>

#include "core/paths.hpp"
#include "llm/extract.hpp"
#include "llm/llm.hpp"
#include "proposers/llm/prompts.hpp"
#include "search/brief.hpp"

using ksearch::backends::Backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::Task;

namespace ksearch::cli {

namespace kl = ksearch::llm;
namespace pl = ksearch::proposers::llm;

std::string failure_text(const EvalReport& report) {
  std::string text = fmt::format("metal backend (metalsim): {}{}", status_name(report.status),
                                 report.message.empty() ? "" : ": " + report.message);
  for (const auto& w : report.workloads)
    if (w.status != Status::passed && !w.message.empty()) text += fmt::format("\n- {}: {}", w.name, w.message);
  if (report.status == Status::compile_error && !report.log.empty()) text += "\n" + report.log;
  return text;
}

EvalReport check_port(const Task& task, Backend& backend, const std::string& candidate) {
  EvalOptions options;
  options.time = false;
  options.compare_to_seed = false;
  return Evaluator(task, backend, options).evaluate(candidate);
}

RepairConversation RepairConversation::start(const std::string& cuda_source, const translate::Translation& translation,
                                             const std::string& first_failure) {
  RepairConversation c;
  c.cuda_source = cuda_source;
  c.partial = translation.candidate;
  auto list = [&](const translate::Problem& p) { c.untranslated += fmt::format("- {}: {}: {}\n", p.where(), p.construct, p.reason); };
  for (const auto& p : translation.problems) list(p);
  for (const auto& k : translation.kernels)
    if (k.launched)
      for (const auto& p : k.problems) list(p);
  if (c.untranslated.empty()) c.untranslated = "(nothing: the translation is complete, but " + first_failure + ")";
  return c;
}

nlohmann::json RepairConversation::to_json() const {
  return {{"cuda_source", cuda_source}, {"partial", partial}, {"untranslated", untranslated}, {"previous", previous},
          {"failure", failure}};
}

RepairConversation RepairConversation::from_json(const nlohmann::json& j) {
  RepairConversation c;
  c.cuda_source = j.at("cuda_source").get<std::string>();
  c.partial = j.at("partial").get<std::string>();
  c.untranslated = j.at("untranslated").get<std::string>();
  c.previous = j.at("previous").get<std::string>();
  c.failure = j.at("failure").get<std::string>();
  return c;
}

RepairPrompt repair_prompt(const Task& task, Backend& backend, const RepairConversation& conversation,
                           const std::string& prompts_dir) {
  const pl::PromptLibrary prompts(prompts_dir.empty() ? pl::PromptLibrary::default_dir() : std::filesystem::path(prompts_dir));
  pl::Vars vars = pl::task_vars(search::brief_of(task, backend), pl::BackendInfo::of(backend));
  vars["cuda_source"] = conversation.cuda_source;
  vars["partial"] = conversation.partial;
  vars["untranslated"] = conversation.untranslated;
  vars["previous"] = conversation.previous;
  vars["failure"] = conversation.failure;
  return {prompts.render("system", vars), prompts.render("port_repair", vars)};
}

std::string answered_candidate(const std::string& answer) {
  const auto code = kl::extract_code(answer, {"metal"});
  if (!code || code->code.empty()) return "";
  return code->code.back() == '\n' ? code->code : code->code + "\n";
}

Repair repair_port(const Task& task, Backend& backend, const pl::LlmSettings& settings, RepairConversation conversation,
                   int max_attempts, const std::function<EvalReport(const std::string&)>& evaluate) {
  auto prices = std::make_shared<const kl::PriceTable>(
      kl::PriceTable::load_default(data_path("config/prices.toml"), settings.prices_file));
  auto client = kl::make_client(settings.provider, prices, std::make_shared<kl::BudgetTracker>(settings.budget));

  Repair repair;
  repair.model = client->describe();
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    const RepairPrompt prompt = repair_prompt(task, backend, conversation, settings.prompts_dir);
    kl::CompletionRequest request;
    request.system = prompt.system;
    request.messages = {{"user", prompt.user}};
    request.purpose = "port-repair";
    const std::string candidate = answered_candidate(client->complete(request).text);
    if (candidate.empty()) {
      repair.attempts.push_back({"", "no_code", "the answer has no ```metal code block"});
      conversation.failure = "(your answer had no ```metal code block)";
      continue;
    }
    const EvalReport report = evaluate(candidate);
    repair.attempts.push_back({candidate, std::string(status_name(report.status)), report.message});
    repair.report = report;
    if (report.status == Status::passed) break;
    conversation.previous = candidate;
    conversation.failure = failure_text(report);
  }
  return repair;
}

}  // namespace ksearch::cli
