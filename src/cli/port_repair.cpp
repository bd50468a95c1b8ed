#include "cli/port_repair.hpp"

#include <fmt/format.h>

#include "core/paths.hpp"
#include "llm/extract.hpp"
#include "llm/llm.hpp"
#include "proposers/llm/prompts.hpp"
#include "search/brief.hpp"

using ksearch::backends::Backend;
using ksearch::evaluator::EvalReport;
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

Repair repair_port(const Task& task, Backend& backend, const pl::LlmSettings& settings, const std::string& cuda_source,
                   const translate::Translation& translation, const std::string& first_failure, int max_attempts,
                   const std::function<EvalReport(const std::string&)>& evaluate) {
  auto prices = std::make_shared<const kl::PriceTable>(
      kl::PriceTable::load_default(data_path("config/prices.toml"), settings.prices_file));
  auto client = kl::make_client(settings.provider, prices, std::make_shared<kl::BudgetTracker>(settings.budget));
  const pl::PromptLibrary prompts(settings.prompts_dir.empty() ? pl::PromptLibrary::default_dir()
                                                               : std::filesystem::path(settings.prompts_dir));

  const proposers::TaskBrief brief = search::brief_of(task, backend);
  pl::Vars vars = pl::task_vars(brief, pl::BackendInfo::of(backend));
  std::string untranslated;
  auto list = [&](const translate::Problem& p) { untranslated += fmt::format("- {}: {}: {}\n", p.where(), p.construct, p.reason); };
  for (const auto& p : translation.problems) list(p);
  for (const auto& k : translation.kernels)
    if (k.launched)
      for (const auto& p : k.problems) list(p);
  vars["cuda_source"] = cuda_source;
  vars["partial"] = translation.candidate;
  vars["untranslated"] = untranslated.empty() ? "(nothing: the translation is complete, but " + first_failure + ")" : untranslated;
  vars["previous"] = "";
  vars["failure"] = "";

  Repair repair;
  repair.model = client->describe();
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    kl::CompletionRequest request;
    request.system = prompts.render("system", vars);
    request.messages = {{"user", prompts.render("port_repair", vars)}};
    request.purpose = "port-repair";
    const kl::CompletionResponse response = client->complete(request);
    const auto code = kl::extract_code(response.text, {"metal"});
    if (!code || code->code.empty()) {
      repair.attempts.push_back({"", "no_code", "the answer has no ```metal code block"});
      vars["failure"] = "(your answer had no ```metal code block)";
      continue;
    }
    const std::string candidate = code->code.back() == '\n' ? code->code : code->code + "\n";
    const EvalReport report = evaluate(candidate);
    repair.attempts.push_back({candidate, std::string(status_name(report.status)), report.message});
    repair.report = report;
    if (report.status == Status::passed) break;
    vars["previous"] = candidate;
    vars["failure"] = failure_text(report);
  }
  return repair;
}

}  // namespace ksearch::cli
