#pragma once
// The interface of every proposer: the built-in expert (templates), model clients, external agents.
//
// A proposer writes code: given a CodeRequest (what to implement, known-good code to start from,
// feedback on earlier attempts) it returns candidate sources. The search loop (search::Search)
// owns the strategy, evaluation and bookkeeping. Proposers that can also plan (built-in, LLM,
// agent) implement the optional Planner role, which the world-model strategy
// (strategies/world_model) uses to build and grow its tree of hypotheses (world_model.hpp):
//   initialize  -> the first world model (root = the seed, children = first hypotheses)
//   propose     -> an edit script adding hypotheses when the frontier is thin
//   refine      -> an edit script + reflection after a cycle
// Edit scripts are validated by code (world_model::apply_edit_script); an invalid one is sent
// back in a new request with `previous_errors` set, up to the strategy's re-ask limit.
//
// Asynchronous / step-driven proposers: a method may return std::nullopt, meaning "no answer
// yet". The loop then stops with Search::Outcome::waiting; the request stays persisted in the
// run store (pending_request). Whoever produces the answer stores it with
// RunStore::answer_pending(seq, reply.to_json()) and resumes the run (`ksearch resume`), and the
// loop consumes the stored answer instead of asking again. Synchronous proposers (built-in, API
// models) simply always answer.
//
// Concurrency: a proposer that declares concurrent_calls() gets several write_code calls at once
// (each on a worker thread of the loop, planning calls beside them); the others get one call at a time.
//
// Errors: throw (any std::exception) for a failed call; the loop records it as a proposer call
// with the error, retries the same request (kProposerRetries), and on persistent failure ends the
// round without candidates. Evaluations already committed are never affected. Throw ProposerError
// to have the calls made before the failure recorded too. A proposer that can answer no more (e.g.
// its model budget is spent) returns a non-empty stop_reason(): the loop ends the run cleanly
// (final verdict on the best so far) instead of retrying.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "proposers/protocol.hpp"

namespace ksearch::backends {
class Backend;
}
namespace ksearch::tasks {
struct Task;
}
namespace ksearch::store {
class RunStore;
}

namespace ksearch::proposers {

// The optional planning role (see above); the same error and pending rules apply.
class Planner {
 public:
  virtual ~Planner() = default;
  virtual std::optional<Answer<InitializeReply>> initialize(const InitializeRequest& request) = 0;
  virtual std::optional<Answer<ProposeReply>> propose(const ProposeRequest& request) = 0;
  virtual std::optional<Answer<RefineReply>> refine(const RefineRequest& request) = 0;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;  // recorded with every candidate and call, e.g. "builtin", "llm:openai:gpt-5"
  virtual std::optional<Answer<CodeReply>> write_code(const CodeRequest& request) = 0;
  // The planning role, or nullptr for a proposer that only writes code.
  virtual Planner* planner() { return nullptr; }
  // Non-empty once the proposer cannot answer any more requests; the reason becomes the run's stop reason.
  virtual std::string stop_reason() const { return {}; }
  // True when every method may be called from several threads at once (separate connections per
  // call, shared state such as spending guarded) and always answers (never leaves a request
  // pending). The loop then keeps up to --proposer-concurrency calls in flight; otherwise one.
  virtual bool concurrent_calls() const { return false; }
  // True when it can write code for a hypothesis from its text alone (a model, an agent); false for
  // one that only fills in this backend's templates, which cannot act on another run's hypotheses.
  virtual bool implements_hypothesis_text() const { return true; }
};

// A failed request whose calls (each with its prompt, response, tokens, cost) are still recorded.
class ProposerError : public Error {
 public:
  ProposerError(const std::string& message, std::vector<CallInfo> calls) : Error(message), calls_(std::move(calls)) {}
  const std::vector<CallInfo>& calls() const { return calls_; }

 private:
  std::vector<CallInfo> calls_;
};

// What a factory gets to build a proposer for one run.
struct ProposerEnv {
  const tasks::Task* task = nullptr;
  backends::Backend* backend = nullptr;
  const store::RunStore* store = nullptr;  // the run's store when resuming (e.g. past spending), else null
};

// The proposer of a run, by name plus its configuration; stored in the run's config so that
// `ksearch resume` rebuilds the same proposer. Never put secrets in `config` (keys come from the
// environment at run time).
struct ProposerSpec {
  std::string name = "builtin";
  nlohmann::json config = nlohmann::json::object();
};

// Proposers register a factory by name (KSEARCH_REGISTER_PROPOSER); `ksearch run --proposer NAME`
// and resume look them up here. A factory throws Error (clear message) when it cannot serve the
// task, e.g. the built-in proposer on a task it has no knowledge of.
using ProposerFactory = std::function<std::unique_ptr<Proposer>(const ProposerEnv&, const nlohmann::json& config)>;
bool register_proposer(const std::string& name, ProposerFactory factory);
std::unique_ptr<Proposer> make_proposer(const ProposerSpec& spec, const ProposerEnv& env);  // throws Error
std::vector<std::string> proposer_names();

}  // namespace ksearch::proposers

#define KSEARCH_REGISTER_PROPOSER(NAME, ID, FACTORY) \
  static const bool ksearch_proposer_registered_##ID = ::ksearch::proposers::register_proposer(NAME, FACTORY)
