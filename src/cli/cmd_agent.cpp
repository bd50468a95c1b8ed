// `ksearch agent next DIR` / `ksearch agent submit DIR FILE`: an external agent (a person, a coding
// assistant) plays the model's part in a run started with `ksearch run ... --agent`. The prompts
// and the checks on answers are the LLM proposer's (src/proposers/llm/prompts.hpp).
#include <fmt/format.h>

#include <iostream>
#include <iterator>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/search_session.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "search/search.hpp"
#include "proposers/llm/llm_proposer.hpp"
#include "proposers/llm/prompts.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::cli {
namespace {

using nlohmann::json;
namespace pl = proposers::llm;

std::string answer_format(const std::string& role, const std::string& language) {
  if (role == "initialize") return "the world model: one JSON object (```json fence)";
  if (role == "propose") return "an edit script {\"ops\": [...]} (```json fence)";
  if (role == "refine") return "{\"reflection\": \"...\", \"ops\": [...]} (```json fence)";
  return fmt::format("a line `NOTE: ...`, then the complete source file in a ```{} fence (or a JSON {{\"candidates\": [...]}})", language);
}

std::unique_ptr<Backend> backend_of(const store::RunInfo& info) {
  auto backend = make_backend(info.backend);
  std::string why;
  if (!backend->available(&why)) throw Error("backend " + info.backend + " is not available here: " + why);
  return backend;
}

// The run is not waiting for an answer: say why (and whether it is finished).
int explain_no_request(const store::RunStore& store, bool as_json) {
  const auto s = search::summarize(store);
  const bool done = s.phase == "done";
  if (as_json) {
    fmt::print("{}\n", json{{"pending", false}, {"finished", done}, {"summary", s.to_json()}}.dump(2));
  } else if (done) {
    fmt::print("the run is finished ({}); best: {}\n", s.stop_reason.empty() ? "done" : s.stop_reason,
               s.has_best ? fmt::format("c{} {:.2f}x vs seed", s.best_candidate, s.best_speedup) : "none");
  } else {
    fmt::print("no request is waiting (phase {}): continue the run with `ksearch resume {}`\n", s.phase, store.dir().string());
  }
  return done && !s.has_best ? kExitCandidateFailed : kExitOk;
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
  next->add_option("dir", na->dir, "Run folder")->required();
  next->add_flag("--json", na->json, "Print {seq, role, answer_format, system, prompt, request} as JSON");
  next->callback([na, &exit_code] {
    const auto store = store::RunStore::open(na->dir);
    const auto pending = store.pending();
    if (!pending || pending->answer) {
      exit_code = explain_no_request(store, na->json);
      return;
    }
    auto backend = backend_of(store.info());
    const auto info = pl::BackendInfo::of(*backend);
    const auto prompt = pl::PromptLibrary().for_request(pending->role, pending->request, info);
    const std::string format = answer_format(pending->role, info.language);
    if (na->json) {
      fmt::print("{}\n", json{{"pending", true},
                              {"seq", pending->seq},
                              {"role", pending->role},
                              {"answer_format", format},
                              {"system", prompt.system},
                              {"prompt", prompt.user},
                              {"request", pending->request}}
                             .dump(2));
      return;
    }
    fmt::print("request {}: {}\nanswer with: {}\nthen: ksearch agent submit {} FILE\n\n=== system ===\n{}\n=== prompt ===\n{}",
               pending->seq, pending->role, format, na->dir, prompt.system, prompt.user);
  });

  struct SubmitArgs {
    std::string dir, file;
    bool json = false;
  };
  auto sa = std::make_shared<SubmitArgs>();
  auto* submit = agent->add_subcommand("submit", "Answer the pending request from FILE ('-': stdin), then continue the run until it waits again or ends");
  submit->add_option("dir", sa->dir, "Run folder")->required();
  submit->add_option("file", sa->file, "The answer: world-model JSON, edit script, or code, as the request's role needs")->required();
  submit->add_flag("--json", sa->json, "Print one JSON object at the end (progress goes to stderr)");
  submit->callback([sa, &exit_code] {
    auto store = store::RunStore::open(sa->dir, store::RunStore::Access::write);
    const auto pending = store.pending();
    if (!pending) throw Error("run " + sa->dir + " has no pending request (see `ksearch agent next " + sa->dir + "`)");
    if (pending->answer) throw Error("request " + std::to_string(pending->seq) + " is already answered: `ksearch resume " + sa->dir + "`");
    const std::string text = sa->file == "-" ? std::string(std::istreambuf_iterator<char>(std::cin), {}) : read_file(sa->file);
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
    const Task task = load_task(info.task_file);
    auto options = search::SearchOptions::from_json(info.config.value("search", json::object()));
    pl::register_llm_proposers();
    auto proposer = proposers::make_proposer(stored_proposer(info), {&task, backend.get(), &store});
    auto strategy = search::make_strategy(stored_strategy(info), {&task, backend.get()});
    exit_code = run_session(store, task, *backend, *proposer, *strategy, options, {sa->json});
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(33, setup);
}  // namespace ksearch::cli
