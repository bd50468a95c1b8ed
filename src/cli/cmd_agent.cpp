// `ksearch agent next DIR` / `ksearch agent submit DIR FILE`: an external agent (a person, a coding
// assistant) plays the model's part in a run started with `ksearch run ... --agent`. The prompts
// and the checks on answers are the LLM proposer's (src/proposers/llm/prompts.hpp). A port folder of
// `ksearch port --agent` is answered the same way (cli/port_agent.hpp).
#include <fmt/format.h>

#include <iostream>
#include <iterator>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/port_agent.hpp"
#include "cli/run_from.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "search/search.hpp"
#include "proposers/llm/llm_proposer.hpp"
#include "proposers/llm/prompts.hpp"
#include "store/run_lock.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"
#include "core/json_text.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

namespace ksearch::cli {
namespace {

using nlohmann::json;
namespace pl = proposers::llm;

std::string answer_format(const std::string& role, const std::string& language) {
  if (role == "initialize") return "the world model: one JSON object (```json fence)";
  if (role == "propose") return "an edit script {\"ops\": [...]} (```json fence)";
  if (role == "refine") return "{\"reflection\": \"...\", \"ops\": [...]} (```json fence)";
  return fmt::format("a line `NOTE: ...`, then the complete source file in a ```{} fence, or a plain source file, or JSON "
                     "{{\"candidates\": [{{\"source\", \"note\"}}], \"exhausted\": false}}; a line `EXHAUSTED` or "
                     "\"exhausted\": true ends the action's cycle after this round",
                     language);
}

std::unique_ptr<Backend> backend_of(const store::RunInfo& info) {
  auto backend = make_backend(info.backend);
  std::string why;
  if (!backend->available(&why)) throw Error("backend " + info.backend + " is not available here: " + why);
  return backend;
}

// The first evaluation of a run times the seed first (every speedup is measured against it).
bool seed_timed(const store::RunStore& store) { return store.evaluation_count() > 0; }

// What a process continuing the run is doing between two requests.
std::string activity(const store::RunStore& store, const search::RunSummary& s) {
  if (s.phase == "evaluate") return seed_timed(store) ? "evaluating candidates" : "timing the seed, which every speedup is measured against";
  if (s.phase == "final") return "checking the best candidates on the held-out workloads";
  return "phase " + s.phase;
}

// Why no request can be answered now: the run is finished, busy in another process, or stopped.
std::string why_no_request(const store::RunStore& store, const search::RunSummary& s) {
  const std::string dir = store.dir().string();
  if (s.phase == "done")
    return fmt::format("the run is finished ({}); best: {}; see `ksearch show {}`", s.stop_reason.empty() ? "done" : s.stop_reason,
                       s.has_best ? fmt::format("c{} {}", s.best_candidate, s.best_timing_text()) : "none", dir);
  if (const auto pid = store::RunLock::holder(store.dir()))
    return fmt::format("the run is busy: another ksearch process (pid {}) is continuing it, {}; the next request appears when it "
                       "asks (run `ksearch agent next {}` again then)",
                       *pid, activity(store, s), dir);
  if (const auto pending = store.pending(); pending && pending->answer)
    return fmt::format("request {} is answered but the run did not continue: `ksearch resume {}`", pending->seq, dir);
  return fmt::format("no request is waiting (phase {}): continue the run with `ksearch resume {}`", s.phase, dir);
}

// The run is not waiting for an answer: say why (and whether it is finished).
int explain_no_request(const store::RunStore& store, bool as_json) {
  const auto s = search::summarize(store);
  const bool done = s.phase == "done";
  const std::string why = why_no_request(store, s);
  if (as_json)
    fmt::print("{}\n", json_text(json{{"pending", false}, {"finished", done}, {"message", why}, {"summary", s.to_json()}}, 2));
  else
    fmt::print("{}\n", why);
  return done && !s.has_best ? kExitCandidateFailed : kExitOk;
}

// A port folder with no request waiting: the port is finished (or its answer is being checked).
int explain_finished_port(const store::RunStore& store, bool as_json) {
  const json port = port_json(store);
  if (as_json)
    fmt::print("{}\n", json_text(json{{"pending", false}, {"finished", true}, {"message", port_state_line(store)}, {"port", port}}, 2));
  else
    fmt::print("{}\n", port_state_line(store));
  return port.at("status") == "passed" ? kExitOk : kExitCandidateFailed;
}

// The request an answer names: --request N, or a top-level "request_id" of a JSON answer (removed
// from the text before the answer is checked). 0: not named.
int64_t named_request(int64_t option, std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("request_id")) return option;
  if (!j["request_id"].is_number_integer()) throw Error("the answer's \"request_id\" must be an integer (the id `ksearch agent next` shows)");
  const int64_t id = j["request_id"].get<int64_t>();
  if (option && option != id) throw Error(fmt::format("--request {} and the answer's \"request_id\": {} disagree", option, id));
  j.erase("request_id");
  text = json_text(j);
  return id;
}

// Refuses an answer to a request that is not the pending one, saying which one is.
void check_request_id(int64_t id, const store::PendingRequest& pending, const store::RunStore& store) {
  if (!id || id == pending.seq) return;
  const std::string waiting = fmt::format("the run waits on request {} ({}): see `ksearch agent next {}`", pending.seq, pending.role,
                                          store.dir().string());
  if (id < pending.seq) throw Error(fmt::format("request {} is stale: it was already answered; {}", id, waiting));
  throw Error(fmt::format("unknown request {}: the run has issued requests 1 to {}; {}", id, store.last_request_id(), waiting));
}

// Answers a port folder's pending request (cli/port_agent.hpp) and says where the port stands.
int submit_to_port(const std::string& dir, int64_t request_id, const std::string& text, bool as_json) {
  auto store = store::RunStore::open(dir, store::RunStore::Access::write);
  const auto pending = store.pending();
  if (!pending || pending->answer) throw Error("cannot answer: " + port_state_line(store));
  check_request_id(request_id, *pending, store);
  fmt::print(stderr, "request {} ({}) accepted; metalsim checks the candidate on every workload\n", pending->seq, pending->role);
  const json port = submit_port_answer(store, *pending, text);
  const json& last = port.at("attempts").back();
  if (as_json) {
    fmt::print("{}\n", json_text(port, 2));
  } else {
    fmt::print("attempt {}: {}{}\n", port.at("attempts").size(), last.at("status").get<std::string>(),
               last.at("message").get<std::string>().empty() ? "" : ": " + last.at("message").get<std::string>());
    fmt::print("{}\n", port_state_line(store));
  }
  const std::string status = port.at("status").get<std::string>();
  return status == "passed" || status == "waiting" ? kExitOk : kExitCandidateFailed;
}

void setup(CLI::App& app, int& exit_code) {
  auto* agent = app.add_subcommand("agent", "Answer a run's proposer requests yourself (runs started with --agent)");
  agent->require_subcommand(1);

  struct NextArgs {
    std::string dir;
    bool json = false;
  };
  auto na = std::make_shared<NextArgs>();
  auto* next = agent->add_subcommand("next", "Print the pending request: its role, what to answer, and the full prompt");
  next->add_option("dir", na->dir, "Run folder (or port folder of `ksearch port --agent`)")->required();
  next->add_flag("--json", na->json, "Print {request_id, role, answer_format, system, prompt, request} as JSON");
  next->callback([na, &exit_code] {
    const auto store = store::RunStore::open(na->dir);
    const bool port = is_port(store.info());
    const auto pending = store.pending();
    if (!pending || pending->answer) {
      exit_code = port ? explain_finished_port(store, na->json) : explain_no_request(store, na->json);
      return;
    }
    pl::Prompt prompt;
    std::string format;
    if (port) {  // the port folder's request carries its prompt
      prompt.system = pending->request.at("system").get<std::string>();
      prompt.user = pending->request.at("prompt").get<std::string>();
      format = port_answer_format();
    } else {
      auto backend = backend_of(store.info());
      const auto info = pl::BackendInfo::of(*backend);
      prompt = pl::PromptLibrary().for_request(pending->role, pending->request, info);
      format = answer_format(pending->role, info.language);
    }
    if (na->json) {
      fmt::print("{}\n", json_text(json{{"pending", true},
                                         {"request_id", pending->seq},
                                         {"role", pending->role},
                                         {"answer_format", format},
                                         {"system", prompt.system},
                                         {"prompt", prompt.user},
                                         {"request", pending->request}},
                                        2));
      return;
    }
    fmt::print("request {}: {}\nanswer with: {}\nthen: ksearch agent submit {} FILE --request {}\n\n=== system ===\n{}\n=== prompt ===\n{}",
               pending->seq, pending->role, format, na->dir, pending->seq, prompt.system, prompt.user);
  });

  struct SubmitArgs {
    std::string dir, file;
    int64_t request = 0;
    bool json = false;
  };
  auto sa = std::make_shared<SubmitArgs>();
  auto* submit = agent->add_subcommand("submit", "Answer the pending request from FILE ('-': stdin), then continue the run until it waits again or ends");
  submit->add_option("dir", sa->dir, "Run folder (or port folder of `ksearch port --agent`)")->required();
  submit->add_option("file", sa->file, "The answer: world-model JSON, edit script, or code, as the request's role needs")->required();
  submit->add_option("--request", sa->request,
                     "The id of the request this answers (as `agent next` shows it; or \"request_id\" in a JSON answer): "
                     "refused unless it is the pending one")
      ->check(CLI::PositiveNumber);
  submit->add_flag("--json", sa->json, "Print one JSON object at the end (progress goes to stderr)");
  submit->callback([sa, &exit_code] {
    std::string text = sa->file == "-" ? std::string(std::istreambuf_iterator<char>(std::cin), {}) : read_file(sa->file);
    const int64_t request_id = named_request(sa->request, text);
    if (is_port(store::RunStore::open(sa->dir).info())) {
      exit_code = submit_to_port(sa->dir, request_id, text, sa->json);
      return;
    }
    {
      // A finished run, or one another process is continuing, says so instead of "locked" or "no request".
      const auto reader = store::RunStore::open(sa->dir);
      const auto s = search::summarize(reader);
      if (s.phase == "done" || store::RunLock::holder(reader.dir()))
        throw Error("cannot answer: " + why_no_request(reader, s));
    }
    auto store = store::RunStore::open(sa->dir, store::RunStore::Access::write);
    const auto pending = store.pending();
    if (!pending || pending->answer) throw Error("cannot answer: " + why_no_request(store, search::summarize(store)));
    check_request_id(request_id, *pending, store);
    const auto info = store.info();
    auto backend = backend_of(info);
    const auto parsed = pl::parse_answer(pending->role, text, pending->request, pl::BackendInfo::of(*backend));
    if (!parsed.ok()) {
      // Nothing is stored: fix the answer and submit again (the same checks a model's answer gets).
      fmt::print(stderr, "answer to request {} ({}) rejected:\n{}", pending->seq, pending->role, parsed.errors);
      exit_code = kExitUsage;
      return;
    }
    store.answer_pending(pending->seq, parsed.reply);
    Task task = load_task(info.task_file);
    const search::Transfer transfer = use_ported_seed(task, info.config);  // a run started with --from continues from its port
    auto options = search::SearchOptions::from_json(info.config.value("search", json::object()));
    fmt::print(stderr, "request {} ({}) accepted; the run continues until it waits for the next request or ends{}\n", pending->seq,
               pending->role,
               (pending->role == "write_code" || options.seed_eval) && !seed_timed(store) ? " (first it times the seed, which every speedup is measured against: "
                                                         "this can take a minute)"
                                                       : "");
    pl::register_llm_proposers();
    auto proposer = proposers::make_proposer(stored_proposer(info), {&task, backend.get(), &store});
    auto strategy = search::make_strategy(stored_strategy(info), {&task, backend.get()});
    exit_code = run_session(store, task, *backend, *proposer, *strategy, options, {sa->json}, transfer);
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(33, setup);
}  // namespace ksearch::cli
