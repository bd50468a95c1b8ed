// ksearch port FILE.cu --task T: translates a CUDA kernel to a metal candidate (docs/TRANSLATE.md)
// and evaluates it with the metal backend against the task's reference; with --llm, a model repairs
// a port that is incomplete or fails (cli/port_repair.hpp); with --agent, an external agent does, through
// `ksearch agent next/submit` on a port folder (cli/port_agent.hpp).
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/number_checks.hpp"
#include "cli/port_agent.hpp"
#include "cli/port_repair.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"
#include "translate/translate.hpp"
#include "core/json_text.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalReport;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

namespace ksearch::cli {
namespace {

struct PortArgs {
  std::string file, task, out, agent_dir;
  bool json = false;
  int attempts = 3;
};

nlohmann::json problem_json(const translate::Problem& p) {
  return {{"where", p.where()}, {"construct", p.construct}, {"reason", p.reason}};
}

nlohmann::json translation_json(const translate::Translation& t) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : t.kernels) {
    nlohmann::json untranslated = nlohmann::json::array();
    for (const auto& p : k.problems) untranslated.push_back(problem_json(p));
    kernels.push_back({{"name", k.name}, {"line", k.line}, {"launched", k.launched}, {"translated", k.translated},
                       {"untranslated", untranslated}});
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : t.problems) problems.push_back(problem_json(p));
  return {{"complete", t.complete()}, {"kernels", kernels}, {"problems", problems}, {"notes", t.notes}};
}

void print_translation(const translate::Translation& t) {
  for (const auto& k : t.kernels) {
    fmt::print("kernel {} (line {}){}\n", k.name, k.line, k.launched ? ", launched by the entry" : ", not launched: not ported");
    std::string mapped;
    for (const auto& [construct, count] : k.translated) mapped += fmt::format("{}{} x{}", mapped.empty() ? "" : ", ", construct, count);
    if (!mapped.empty()) fmt::print("  translated: {}\n", mapped);
    for (const auto& p : k.problems) fmt::print("  untranslated: {}: {}: {}\n", p.where(), p.construct, p.reason);
  }
  for (const auto& p : t.problems) fmt::print("{}: {}: {}\n", p.where(), p.construct, p.reason);
  for (const auto& n : t.notes) fmt::print("note: {}\n", n);
}

// ports/<FILE's stem>-<time>: where --agent keeps the port's requests by default.
std::filesystem::path default_port_dir(const std::string& file) {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return std::filesystem::path("ports") / fmt::format("{}-{:%Y%m%d-%H%M%S}", std::filesystem::path(file).stem().string(), fmt::localtime(now));
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PortArgs>();
  auto* cmd = app.add_subcommand("port", "Translate a CUDA kernel to a Metal (MLX) candidate and check it with metalsim");
  cmd->add_option("file", args->file, "CUDA source (.cu) defining the task's [entry.cuda] function")->required();
  cmd->add_option("--task", args->task, "Task name or path of a task file")->required();
  cmd->add_option("--out", args->out, "Where to write the metal candidate (default: FILE's name with .metal, here)");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->add_option("--attempts", args->attempts, "--llm, --agent: answers tried before giving up")->capture_default_str()->check(kPositive);
  cmd->add_option("--agent-dir", args->agent_dir,
                  "--agent: the port folder whose requests `ksearch agent next/submit` answer (default: ports/<FILE's name>-<time>)");
  // The model flags of `ksearch run` (--llm PROVIDER:MODEL, --base-url, ...): the repair step's model.
  std::vector<ApplyProposerOptions> appliers;
  for (auto& hook : run_options_hooks()) appliers.push_back(hook(*cmd));
  cmd->callback([args, appliers, &exit_code] {
    proposers::ProposerSpec model;
    for (const auto& apply : appliers) apply(model);
    if (!args->agent_dir.empty() && model.name != "agent") throw Error("--agent-dir is the port folder of --agent: add --agent");
    std::string why;
    if (!translate::available(&why)) throw Error("ksearch port: " + why);
    Task task = resolve_task(args->task);
    if (!std::filesystem::exists(args->file)) throw Error("CUDA file not found: " + args->file);
    translate::Translation t = translate::translate_file(args->file, task);
    if (tasks::add_metal_entry_from_cuda(task))
      t.notes.push_back("task " + task.name + " has no [entry.metal]: its [entry.cuda] arguments are used");
    const std::string out = args->out.empty() ? std::filesystem::path(args->file).stem().string() + ".metal" : args->out;
    nlohmann::json result = {{"file", args->file}, {"task", task.name}, {"translation", translation_json(t)}};
    std::optional<EvalReport> report;
    if (!t.candidate.empty()) {
      // A partial translation is written too (for a repair by hand or by a model), but only a
      // complete one is evaluated.
      write_file_atomic(out, t.candidate);
      result["out"] = out;
    }
    auto backend = make_backend("metal");
    auto evaluate = [&](const std::string& candidate) {
      if (!backend->available(&why)) throw Error("backend metal is not available here: " + why);
      return check_port(task, *backend, candidate);
    };
    if (t.complete()) {
      report = evaluate(t.candidate);
      result["evaluation"] = report->to_json();
    }
    std::optional<Repair> repair;
    const bool repairing = !(report && report->status == Status::passed);
    const auto conversation = [&] { return RepairConversation::start(read_file(args->file), t, report ? failure_text(*report) : ""); };
    if (model.name == "agent" && repairing) {
      // The repair waits in a port folder for `ksearch agent submit`; this command ends here.
      const std::filesystem::path dir = args->agent_dir.empty() ? default_port_dir(args->file) : std::filesystem::path(args->agent_dir);
      result["out"] = std::filesystem::absolute(out).string();
      start_port_agent(dir, task, *backend, conversation(), args->attempts, result);
      const auto store = store::RunStore::open(dir);
      if (args->json)
        fmt::print("{}\n", json_text(port_json(store), 2));
      else {
        print_translation(t);
        if (report) fmt::print("metal backend (metalsim): {}{}\n", status_name(report->status), report->message.empty() ? "" : ": " + report->message);
        fmt::print("{}\n", port_state_line(store));
      }
      exit_code = kExitOk;
      return;
    }
    if (model.name == "llm" && repairing) {
      repair = repair_port(task, *backend, proposers::llm::LlmSettings::from_json(model.config), conversation(), args->attempts,
                           evaluate);
      nlohmann::json attempts = nlohmann::json::array();
      for (const auto& a : repair->attempts) attempts.push_back({{"status", a.status}, {"message", a.message}});
      result["repair"] = {{"model", repair->model}, {"attempts", attempts}, {"passed", repair->passed()}};
      if (repair->report) {
        report = repair->report;
        result["evaluation"] = report->to_json();
        write_file_atomic(out, repair->attempts.back().candidate);  // the last evaluated answer
        result["out"] = out;
      }
    }
    const bool passed = report && report->status == Status::passed;
    result["status"] = passed ? "passed" : report ? std::string(status_name(report->status)) : "untranslated";
    if (args->json) {
      fmt::print("{}\n", json_text(result, 2));
    } else {
      print_translation(t);
      if (repair) {
        for (size_t i = 0; i < repair->attempts.size(); ++i)
          fmt::print("repair attempt {} ({}): {}{}\n", i + 1, repair->model, repair->attempts[i].status,
                     repair->attempts[i].message.empty() ? "" : ": " + repair->attempts[i].message);
        if (repair->report) fmt::print("wrote {} (the model's last answer)\n", out);
      } else if (!t.candidate.empty()) {
        fmt::print("wrote {}{}\n", out, t.complete() ? "" : " (partial translation, not evaluated)");
      } else {
        fmt::print("no metal candidate written\n");
      }
      if (report)
        fmt::print("metal backend (metalsim): {}{}\n", status_name(report->status), report->message.empty() ? "" : ": " + report->message);
      if (report && !passed)
        for (const auto& w : report->workloads)
          if (w.status != Status::passed && !w.message.empty()) fmt::print("  {}: {}\n", w.name, w.message);
    }
    exit_code = passed ? kExitOk : kExitCandidateFailed;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(25, setup);
}  // namespace ksearch::cli
