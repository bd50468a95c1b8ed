#include "cli/port_agent.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "tasks/registry.hpp"
#include "translate/translate.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::evaluator::EvalReport;
using ksearch::tasks::Task;

namespace ksearch::cli {

using nlohmann::json;

namespace {

json next_request(const Task& task, Backend& backend, const RepairConversation& conversation, int attempt, int max_attempts) {
  const RepairPrompt prompt = repair_prompt(task, backend, conversation);
  return {{"attempt", attempt},        {"max_attempts", max_attempts}, {"conversation", conversation.to_json()},
          {"system", prompt.system},   {"prompt", prompt.user}};
}

// The task as `ksearch port` saw it: a task without [entry.metal] gets its [entry.cuda] arguments.
Task port_task(const store::RunInfo& info) { return tasks::load_run_task(info.task_file, "metal"); }

}  // namespace

bool is_port(const store::RunInfo& info) { return info.config.contains("port"); }

void start_port_agent(const std::filesystem::path& dir, const Task& task, Backend& backend,
                      const RepairConversation& conversation, int max_attempts, json port) {
  port["status"] = "waiting";
  port["max_attempts"] = max_attempts;
  port["attempts"] = json::array();
  store::RunInfo info;
  info.task_name = task.name;
  info.task_file = std::filesystem::absolute(task.file).string();
  info.task_hash = task.content_hash;
  info.backend = backend.name();
  info.config = {{"port", port}, {"proposer", {{"name", "agent"}}}};
  auto store = store::RunStore::create(dir, info);
  store.issue_request(kPortRepairRole, next_request(task, backend, conversation, 1, max_attempts));
  store.add_event(0, "port", "the deterministic port did not pass: request 1 waits for `ksearch agent submit`");
}

std::string port_answer_format() {
  return "the complete metal candidate file (directives first, then the header and body) in one ```metal fence, "
         "or a plain .metal file";
}

json submit_port_answer(store::RunStore& store, const store::PendingRequest& pending, const std::string& answer) {
  // A plain .metal file is its own candidate; otherwise the answer's metal code block.
  const bool fenced = answer.find("```") != std::string::npos;
  const std::string candidate = fenced ? answered_candidate(answer) : answer;
  if (candidate.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error("the answer has no metal code: answer with " + port_answer_format());
  store::RunInfo info = store.info();
  json& port = info.config["port"];
  const Task task = port_task(info);
  auto backend = make_backend(info.backend);
  std::string why;
  if (!backend->available(&why)) throw Error("backend " + info.backend + " is not available here: " + why);

  store.answer_pending(pending.seq, {{"candidate", candidate}});
  const int attempt = pending.request.at("attempt").get<int>();
  const int max_attempts = pending.request.at("max_attempts").get<int>();
  const EvalReport report = check_port(task, *backend, candidate);
  store::Candidate c;
  c.round = attempt;
  c.proposer = "agent";
  c.source = candidate;
  c.source_hash = sha256_hex(candidate);
  c.note = fmt::format("port repair attempt {} (request {})", attempt, pending.seq);
  const int64_t id = store.add_candidate(c);
  const std::string status(status_name(report.status));
  store.record_evaluation(id, report.to_json(), status, 0, 0, 0, report.compile_seconds, 0);
  port["attempts"].push_back({{"candidate", id}, {"status", status}, {"message", report.message}});
  port["evaluation"] = report.to_json();

  const bool passed = report.status == Status::passed;
  if (passed || attempt >= max_attempts) {
    write_file_atomic(port.at("out").get<std::string>(), candidate);
    port["status"] = status;
    store.clear_pending();
    store.add_event(attempt, "port",
                    fmt::format("attempt {}: {}; wrote {}{}", attempt, status, port.at("out").get<std::string>(),
                                passed ? "" : " (out of attempts)"));
  } else {
    RepairConversation conversation = RepairConversation::from_json(pending.request.at("conversation"));
    conversation.previous = candidate;
    conversation.failure = failure_text(report);
    const int64_t next = store.issue_request(kPortRepairRole, next_request(task, *backend, conversation, attempt + 1, max_attempts));
    store.add_event(attempt, "port", fmt::format("attempt {}: {}; request {} waits", attempt, status, next));
  }
  store.set_config(info.config);
  return port_json(store);
}

json port_json(const store::RunStore& store) {
  json port = store.info().config.at("port");
  port["dir"] = store.dir().string();
  if (const auto pending = store.pending(); pending && !pending->answer) port["request_id"] = pending->seq;
  return port;
}

std::string port_state_line(const store::RunStore& store) {
  const json port = port_json(store);
  const std::string status = port.at("status").get<std::string>();
  const size_t attempts = port.at("attempts").size();
  if (status == "waiting")
    return fmt::format("the port waits for request {} (attempt {} of {}): `ksearch agent next {}`",
                       port.value("request_id", int64_t(0)), attempts + 1, port.at("max_attempts").get<int>(), store.dir().string());
  return fmt::format("the port is finished after {} attempt{}: {}; wrote {}", attempts, attempts == 1 ? "" : "s", status,
                     port.at("out").get<std::string>());
}

}  // namespace ksearch::cli
