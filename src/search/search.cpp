#include "search/search.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <set>
#include <thread>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "evaluator/retime.hpp"
#include "search/brief.hpp"
#include "core/json_text.hpp"

using ksearch::backends::Backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::RetimeEntry;
using ksearch::evaluator::RetimeMeasurement;
using ksearch::evaluator::RetimeResult;
using ksearch::evaluator::RetimedCandidate;
using ksearch::evaluator::WorkloadSet;
using ksearch::evaluator::analyze_retiming;
using ksearch::evaluator::kNoisyWidthRatio;
using ksearch::evaluator::retime;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;

using nlohmann::json;

namespace ksearch::search {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchOptions, rounds, minutes, parallel, proposer_concurrency, seed_eval, finalists,
                                                retime_rounds)

json SearchOptions::to_json() const { return json(*this); }
SearchOptions SearchOptions::from_json(const json& j) { return j.get<SearchOptions>(); }

std::string candidate_name(int64_t id) { return id ? "c" + std::to_string(id) : "seed"; }

double timing_spread(const store::Candidate& c) {
  return c.report.is_object() ? EvalReport::from_json(c.report).spread() : 0;
}

proposers::Feedback feedback_of(const store::Candidate& c) {
  proposers::Feedback f;
  f.candidate_id = c.id;
  f.status = c.status;
  f.payload = c.payload;
  f.speedup_vs_seed = c.speedup_vs_seed;
  f.median_ms = c.median_ms;
  f.roofline_fraction = c.roofline_fraction;
  if (c.report.is_object()) {
    const EvalReport r = EvalReport::from_json(c.report);
    f.message = r.message;
    f.log_excerpt = tail_lines(r.log, 20);
    for (const auto& w : r.workloads) {
      if (w.held_out) continue;  // never shown to a proposer
      f.workloads.push_back({w.name, std::string(status_name(w.status)), w.message, w.timing.median, w.timing.spread(), w.seed_ms,
                             w.speedup_vs_seed, w.roofline_fraction});
      if (w.status != Status::passed && f.failing_workload.empty()) {
        f.failing_workload = w.name + (w.message.empty() ? "" : ": " + w.message);
        f.max_abs_err = w.max_abs_err;
        f.max_rel_err = w.max_rel_err;
      }
    }
  }
  return f;
}

namespace {

// A new best must beat the old one by more than their timing noise: a single lucky evaluation is no
// improvement (the finalists' re-timing settles the order at the end).
bool better(const store::Candidate& c, const std::optional<Best>& best) {
  return c.status == "passed" &&
         (!best || measured_gain(c.speedup_vs_seed, timing_spread(c), best->speedup, best->spread).significant());
}

// The options the loop evaluates with: the visible workloads (held-out ones are kept for the final
// verdict), and the seed timed in this run's folder, so that speedups compare timings of one sitting.
EvalOptions evaluation_options(const store::RunStore& store) {
  EvalOptions o;
  o.workloads = WorkloadSet::visible;
  o.seed_timings_dir = store.dir();
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

store::ProposerCall call_row(int round, proposers::Role role, const std::string& proposer, const proposers::CallInfo& c) {
  return {0, round, proposers::role_name(role), proposer, c.model, c.prompt, c.response, c.input_tokens, c.output_tokens, c.cost_usd,
          c.seconds, c.error, 0};
}

}  // namespace

proposers::TaskBrief brief_of(const Task& task, Backend& backend) {
  proposers::TaskBrief b;
  b.task = task.name;
  b.backend = backend.name();
  b.description = task.description;
  b.entry = backend.entry_description(task);
  b.hardware = backend.profile().prose;
  const std::string& seed = task.entry(backend.name()).seed;
  b.seed_source = seed.empty() ? "" : read_file(seed);  // a port's repair step has no seed yet
  b.task_file = task.file.string();
  for (const Workload* w : task.workloads_for(backend.name(), false)) {
    std::string line = w->name + ":";
    for (const auto& [axis, value] : w->axes) line += fmt::format(" {}={}", axis, value);
    // Params a workload sets and tensors it leaves out change what the kernel computes: the proposer must see them.
    for (const auto& [param, value] : w->params) line += fmt::format(" {}={:g}", param, value);
    for (const auto& tensor : w->absent) line += fmt::format(" (no {})", tensor);
    b.workloads.push_back(line);
  }
  return b;
}

Search::Search(store::RunStore& store, const Task& task, Backend& backend, proposers::Proposer& proposer, Strategy& strategy,
               SearchOptions options, SearchObserver observer, const executors::ExecutorSpec& executor, Transfer transfer)
    : store_(store),
      task_(task),
      backend_(backend),
      proposer_(proposer),
      strategy_(strategy),
      options_(options),
      observer_(std::move(observer)),
      executor_(executors::make_executor(executor, {&task, &backend, evaluation_options(store), store.dir(), std::max(options.parallel, 1)})),
      brief_(brief_of(task, backend)),
      transfer_(std::move(transfer)),
      session_start_(std::chrono::steady_clock::now()) {
  options_.parallel = std::max(options_.parallel, 1);
  if (!transfer_.kernels.empty()) options_.seed_eval = true;
  if (const auto stored = store_.load_state()) {
    state_ = LoopState::from_json(*stored);
    if (state_.strategy != strategy_.name())
      throw Error(fmt::format("the run was searched with strategy '{}', not '{}'", state_.strategy, strategy_.name()));
    if (!state_.strategy_state.is_null()) strategy_.restore(state_.strategy_state);
  }
  state_.strategy = strategy_.name();
  // One write_code call per group of --parallel places fills the executor; a proposer that is not
  // safe to call concurrently (agent: one request at a time) gets one.
  const int fill = (executor_->capacity() + options_.parallel - 1) / options_.parallel;
  proposer_slots_ = !proposer_.concurrent_calls() ? 1 : options_.proposer_concurrency > 0 ? options_.proposer_concurrency : fill;
}

double Search::elapsed() const {
  return state_.elapsed_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
}

bool Search::time_budget_reached() const { return options_.minutes > 0 && elapsed() >= options_.minutes * 60; }

bool Search::budget_spent() const {
  if (state_.round + int(state_.writing.size()) >= options_.rounds) return true;  // rounds written or being written
  if (!proposer_.stop_reason().empty()) return true;
  return time_budget_reached();
}

void Search::save(const std::string& reason) {
  store_.transaction([&] { persist(reason); });
}

void Search::persist(const std::string& reason) {
  // elapsed_seconds is stored as the total; in memory it stays the previous sessions' total.
  LoopState stored = state_;
  stored.elapsed_seconds = elapsed();
  stored.strategy_state = strategy_.snapshot();
  store_.save_state(stored.to_json());
  if (reason.empty()) return;
  if (const json tree = strategy_.tree(); !tree.is_null()) store_.save_world_model(state_.round, reason, tree);
}

Progress Search::progress() const {
  Progress p;
  p.phase = phase_name(state_.phase);
  p.round = state_.round;
  p.rounds = options_.rounds;
  p.cycle = state_.cycle;
  p.strategy_status = strategy_.status();
  p.evaluations = store_.evaluation_count();
  p.elapsed_seconds = elapsed();
  if (!state_.writing.empty()) {
    p.node_id = state_.writing.back().request.node_id;
    p.action = state_.writing.back().request.action.value("title", "");
  }
  if (state_.best) {
    p.best_speedup = state_.best->speedup;
    p.best_candidate = state_.best->candidate;
  }
  return p;
}

void Search::notify(SearchEvent event) {
  if (event.kind == EventKind::message || event.kind == EventKind::cycle_end || event.kind == EventKind::final)
    store_.add_event(state_.round, event.kind == EventKind::message ? "message" : "cycle", event.text);
  if (observer_) observer_(event, progress());
}

proposers::Planner& Search::planner() const {
  proposers::Planner* p = proposer_.planner();
  if (!p)
    throw Error(fmt::format("strategy '{}' needs a proposer that plans; proposer '{}' only writes code", strategy_.name(),
                            proposer_.name()));
  return *p;
}

std::optional<proposers::InitializeReply> Search::ask(const proposers::InitializeRequest& request) {
  return ask<proposers::InitializeReply>(proposers::Role::initialize, request, [this](const auto& r) { return planner().initialize(r); });
}
std::optional<proposers::ProposeReply> Search::ask(const proposers::ProposeRequest& request) {
  return ask<proposers::ProposeReply>(proposers::Role::propose, request, [this](const auto& r) { return planner().propose(r); });
}
std::optional<proposers::RefineReply> Search::ask(const proposers::RefineRequest& request) {
  return ask<proposers::RefineReply>(proposers::Role::refine, request, [this](const auto& r) { return planner().refine(r); });
}

// A proposer call (seconds to minutes for a model) on a thread of its own, while this thread goes on
// collecting and committing evaluations: neither the proposer nor the devices wait for the other.
// Only this thread writes the store; the strategy is not called meanwhile (rounds that complete are
// observed once the call returned).
template <class Call>
auto Search::while_evaluating(Call call) {
  if (unfinished() == 0) return call();
  auto answer = std::async(std::launch::async, call);
  while (answer.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (unfinished() > 0)
      poll(std::chrono::milliseconds(100));
    else
      answer.wait();
  }
  return answer.get();
}

// One proposer request: consumes an answer submitted from outside if there is one, otherwise asks
// the proposer (retrying failures); records every call. nullopt: the request is left pending.
template <class Reply, class Request, class Call>
std::optional<Reply> Search::ask(proposers::Role role, const Request& request, Call invoke) {
  const int round = state_.round;
  auto pending = store_.pending();
  if (pending && pending->role == proposers::role_name(role) && pending->answer) {
    Reply reply;
    try {
      reply = Reply::from_json(*pending->answer);
    } catch (const Error& e) {
      // Drop the unusable answer so that a corrected one can be submitted for the same request.
      store_.drop_answer(pending->seq);
      throw Error(fmt::format("the answer submitted to request {} ({}) is unusable: {}", pending->seq, pending->role, e.what()));
    }
    store::ProposerCall call;
    call.round = round;
    call.role = proposers::role_name(role);
    call.proposer = proposer_.name() + " (submitted)";
    call.prompt = json_text(pending->request);
    call.response = pending->answer->dump();
    call.seconds = std::max(0.0, pending->answered_at - pending->created_at);  // the agent's time to answer
    call.created_at = pending->answered_at;
    store_.add_call(call);
    store_.clear_pending();
    return reply;
  }
  if (!pending || pending->role != proposers::role_name(role)) store_.issue_request(proposers::role_name(role), request.to_json());
  for (int attempt = 0;; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    try {
      auto answer = while_evaluating([&] { return invoke(request); });
      if (!answer) return std::nullopt;  // left pending (agent)
      record_answer(round, role, request.to_json(), answer->calls, answer->reply.to_json(), seconds_since(start));
      store_.clear_pending();
      return std::move(answer->reply);
    } catch (const std::exception& e) {
      record_failure(round, role, request.to_json(), e, attempt, seconds_since(start));
      if (attempt >= kProposerRetries || !proposer_.stop_reason().empty()) {
        store_.clear_pending();
        throw;
      }
    }
  }
}

void Search::record_answer(int round, proposers::Role role, const json& request, const std::vector<proposers::CallInfo>& calls,
                           const json& reply, double seconds) {
  if (calls.empty()) {
    proposers::CallInfo exchange;
    exchange.prompt = json_text(request);
    exchange.response = json_text(reply);
    exchange.seconds = seconds;
    store_.add_call(call_row(round, role, proposer_.name(), exchange));
  }
  for (const auto& c : calls) store_.add_call(call_row(round, role, proposer_.name(), c));
}

void Search::record_failure(int round, proposers::Role role, const json& request, const std::exception& error, int attempt,
                            double seconds) {
  const auto* failure = dynamic_cast<const proposers::ProposerError*>(&error);
  if (failure && !failure->calls().empty()) {
    for (const auto& c : failure->calls()) store_.add_call(call_row(round, role, proposer_.name(), c));
  } else {
    proposers::CallInfo exchange;
    exchange.prompt = json_text(request);
    exchange.error = error.what();
    exchange.seconds = seconds;
    store_.add_call(call_row(round, role, proposer_.name(), exchange));
  }
  notify({EventKind::message, fmt::format("proposer {} failed ({}): {}", proposers::role_name(role), attempt + 1, error.what())});
}

Search::Outcome Search::run() {
  for (;;) {
    switch (state_.phase) {
      case Phase::done: return Outcome::finished;
      case Phase::init:
        if (!do_init()) return Outcome::waiting;
        break;
      case Phase::next:
      case Phase::code:
      case Phase::evaluate:
        if (!do_search()) return Outcome::waiting;
        break;
      case Phase::finish:
        if (!do_finish()) return Outcome::waiting;
        break;
      case Phase::retime: do_retime(); break;
      case Phase::final: do_final(); break;
    }
  }
}

bool Search::do_init() {
  if (!strategy_.init(*this)) return false;
  state_.phase = Phase::next;
  if (options_.seed_eval) {
    store::Candidate c;
    c.round = 0;
    c.proposer = "seed";
    c.source = brief_.seed_source;
    c.source_hash = sha256_hex(c.source);
    c.note = "the task's seed";
    store_.transaction([&] {
      RoundInFlight seed;
      seed.seed = true;
      seed.candidates = {store_.add_candidate(c)};
      for (const auto& kernel : transfer_.kernels) {  // carried over from another run: evaluated with the seed
        store::Candidate k = c;
        k.proposer = kernel.proposer;
        k.source = kernel.source;
        k.source_hash = sha256_hex(kernel.source);
        k.note = kernel.note;
        k.payload = kernel.payload;
        seed.candidates.push_back(store_.add_candidate(k));
      }
      state_.in_flight.push_back(seed);
      persist("initialize");
    });
    return true;
  }
  save("initialize");
  return true;
}

// The asynchronous search. Up to the executor's capacity of evaluations are in flight; a round is
// observed as soon as its candidates are back, and free places are filled with new rounds, written
// while the others are evaluated: up to proposer_concurrency() rounds at once, the free places shared
// among them (each at most --parallel candidates). False: the proposer left a request pending (what
// is in flight is committed first).
bool Search::do_search() {
  const bool concurrent = proposer_.concurrent_calls();
  try {
    for (const auto& round : state_.in_flight) dispatch(round);  // a resumed run: evaluated again, or re-attached
    for (;;) {
      collect_calls();
      observe_completed();
      if (!concurrent && !state_.writing.empty()) {  // one call at a time (also a round the session that planned it left)
        if (!write_round(state_.writing.front())) break;
        continue;
      }
      for (const auto& round : state_.writing)  // a resumed run: the rounds that were being written are asked for again
        if (std::none_of(calls_.begin(), calls_.end(), [&](const WriteCall& c) { return c.round.id == round.id; })) start_call(round, 0);
      const int free_places = executor_->capacity() - unfinished() - being_written();
      const int free_calls = proposer_slots_ - int(state_.writing.size());
      if (!budget_spent() && !idle_ && free_places > 0 && free_calls > 0) {
        state_.phase = Phase::next;
        Plan plan = strategy_.next(*this);
        if (plan.kind == Plan::Kind::wait) break;
        if (plan.kind == Plan::Kind::stop) {
          if (state_.in_flight.empty() && state_.writing.empty()) {
            state_.stop_reason = plan.stop_reason;
            state_.phase = Phase::finish;
            save();
            return true;
          }
          idle_ = true;  // maybe something to propose once a pending round is observed
          continue;
        }
        plan.request.task = brief_;
        // Shared among the calls that may still start, so that several rounds (each its own plan)
        // are written at once instead of the first taking every place.
        plan.request.count = std::min(options_.parallel, (free_places + free_calls - 1) / free_calls);
        plan.request.best_speedup = state_.best ? state_.best->speedup : 1.0;
        const RoundBeingWritten round{++state_.planned, plan.cycle, std::move(plan.request)};
        state_.writing.push_back(round);
        state_.cycle = plan.cycle;
        state_.phase = Phase::code;
        save();
        if (concurrent) start_call(round, 0);
        continue;
      }
      if (state_.in_flight.empty() && state_.writing.empty()) {  // the budget is spent and everything observed (an idle strategy has a round pending)
        state_.stopped_by_proposer = state_.round < options_.rounds && !proposer_.stop_reason().empty();
        state_.stop_reason = state_.round >= options_.rounds ? "round budget spent"
                             : state_.stopped_by_proposer    ? proposer_.stop_reason()
                                                             : "time budget reached";
        state_.phase = Phase::finish;
        save();
        return true;
      }
      state_.phase = state_.writing.empty() ? Phase::evaluate : Phase::code;
      await_progress();
    }
  } catch (...) {
    // The driver stops with an error: nothing would collect what is still running.
    executor_->cancel_all();
    throw;
  }
  // Waiting for the proposer: what is in flight is committed now (and observed when the run goes
  // on), so that the step that waits is asked again from the same strategy snapshot.
  while (!calls_.empty() || unfinished() > 0) {
    await_progress();
    collect_calls();
  }
  return false;
}

void Search::await_progress() {
  if (calls_.empty()) return poll(std::chrono::seconds(1));
  if (unfinished() > 0) return poll(std::chrono::milliseconds(100));
  const auto returned = [&] {
    return std::any_of(calls_.begin(), calls_.end(),
                       [](const WriteCall& c) { return c.answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready; });
  };
  for (int i = 0; i < 50 && !returned(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

int Search::being_written() const {
  int candidates = 0;
  for (const auto& w : state_.writing) candidates += std::max(w.request.count, 1);
  return candidates;
}

namespace {

// "round N: <action>", N being the number the round gets when the rounds being written are stored in
// the order planned (they are numbered in the order they are written).
std::string round_title(const LoopState& state, const RoundBeingWritten& round) {
  const auto at = std::find_if(state.writing.begin(), state.writing.end(), [&](const auto& w) { return w.id == round.id; });
  return fmt::format("round {}: {}", state.round + 1 + (at - state.writing.begin()), round.request.action.value("title", round.request.node_id));
}

}  // namespace

// One call at a time: the proposer writes the round now, evaluations are collected meanwhile.
bool Search::write_round(RoundBeingWritten round) {
  state_.phase = Phase::code;
  notify({EventKind::round_start, round_title(state_, round)});
  std::optional<proposers::CodeReply> reply;
  try {
    reply = ask<proposers::CodeReply>(proposers::Role::write_code, round.request, [this](const auto& r) { return proposer_.write_code(r); });
  } catch (const std::exception&) {
    if (!proposer_.stop_reason().empty()) return drop_round(round);
    reply = proposers::CodeReply{};  // recorded by ask(): an empty round
  }
  if (!reply) return false;
  commit_round(round, *reply, [](int) {});  // ask() recorded the calls
  return true;
}

// Concurrent calls: the proposer writes the round on a thread of its own; collect_calls() takes the reply.
void Search::start_call(const RoundBeingWritten& round, int attempt) {
  if (attempt == 0) notify({EventKind::round_start, round_title(state_, round)});
  calls_.push_back({round, attempt, std::chrono::steady_clock::now(),
                    std::async(std::launch::async, [this, request = round.request] { return proposer_.write_code(request); })});
}

void Search::collect_calls() {
  for (size_t i = 0; i < calls_.size();) {
    if (calls_[i].answer.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++i;
      continue;
    }
    WriteCall call = std::move(calls_[i]);
    calls_.erase(calls_.begin() + std::ptrdiff_t(i));
    const double seconds = seconds_since(call.start);
    const json request = call.round.request.to_json();
    std::optional<proposers::Answer<proposers::CodeReply>> answer;
    try {
      answer = call.answer.get();
    } catch (const std::exception& e) {
      record_failure(state_.round, proposers::Role::write_code, request, e, call.attempt, seconds);
      if (!proposer_.stop_reason().empty())
        drop_round(call.round);
      else if (call.attempt < kProposerRetries)
        start_call(call.round, call.attempt + 1);
      else
        commit_round(call.round, {}, [](int) {});  // recorded above: an empty round
      continue;
    }
    if (!answer) throw Error(fmt::format("proposer {} declares concurrent calls but left a write_code request pending", proposer_.name()));
    commit_round(call.round, answer->reply, [&](int round) {
      record_answer(round, proposers::Role::write_code, request, answer->calls, answer->reply.to_json(), seconds);
    });
  }
}

// The candidates, the state change and the call rows in one transaction (a crash leaves either all
// or none: a round being written is stored exactly once), then handed to the executor.
void Search::commit_round(RoundBeingWritten round, const proposers::CodeReply& reply, const std::function<void(int)>& record) {
  const proposers::CodeRequest& request = round.request;
  RoundInFlight written;
  written.round = state_.round + 1;
  written.cycle = round.cycle;
  written.node_id = request.node_id;
  written.node_payload = request.node_payload;
  written.exhausted = reply.exhausted;
  store_.transaction([&] {
    record(written.round);
    for (const auto& cc : reply.candidates) {
      if (int(written.candidates.size()) >= std::max(request.count, 1)) break;
      store::Candidate c;
      c.round = written.round;
      c.cycle = round.cycle;
      c.node_id = request.node_id;
      c.parent_id = request.parent_candidate;
      c.proposer = proposer_.name();
      c.source = cc.source;
      c.source_hash = sha256_hex(cc.source);
      c.note = cc.note;
      c.payload = cc.payload;
      written.candidates.push_back(store_.add_candidate(c));
    }
    state_.round = written.round;
    std::erase_if(state_.writing, [&](const RoundBeingWritten& w) { return w.id == round.id; });
    state_.in_flight.push_back(written);
    state_.phase = Phase::evaluate;
    persist();
  });
  dispatch(written);
}

// The proposer can answer no more (e.g. its model budget is spent): the round is not written; the
// strategy closes its work once nothing is in flight, then the run stops.
bool Search::drop_round(const RoundBeingWritten& round) {
  const int64_t id = round.id;
  std::erase_if(state_.writing, [&](const RoundBeingWritten& w) { return w.id == id; });
  state_.phase = Phase::next;
  save();
  return true;
}

std::vector<PendingRound> Search::pending() const {
  std::vector<PendingRound> out;
  for (const auto& r : state_.in_flight) {
    PendingRound p{r.round, r.cycle, r.node_id, r.node_payload, 0};
    for (int64_t id : r.candidates)
      p.evaluations += int(evaluating_.count(id) + std::count(waiting_.begin(), waiting_.end(), id));
    out.push_back(std::move(p));
  }
  for (const auto& w : state_.writing)
    out.push_back({0, w.cycle, w.request.node_id, w.request.node_payload, std::max(w.request.count, 1), true});
  return out;
}

// A source seen before is never evaluated twice: an evaluated copy's result is reused at once, a
// copy still in flight is waited for. Jobs a previous session submitted are re-attached.
void Search::dispatch(const RoundInFlight& round) {
  for (int64_t id : round.candidates) {
    const auto c = store_.candidate(id);
    if (!c || c->evaluated() || evaluating_.count(id) || std::count(waiting_.begin(), waiting_.end(), id)) continue;
    waiting_.push_back(id);
  }
  hand_out_waiting();
}

void Search::hand_out_waiting() {
  executors::Executor& exec = *executor_;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const auto c = store_.candidate(*it);
    if (const auto first = store_.evaluated_by_hash(c->source_hash)) {
      store_.record_evaluation(c->id, first->report, first->status, first->speedup_vs_seed, first->median_ms, first->roofline_fraction, 0,
                               0, first->id);
      notify({EventKind::evaluated, fmt::format("{} = {} (same source)", candidate_name(c->id), candidate_name(first->id)), c->id,
              first->status, first->speedup_vs_seed, true});
      it = waiting_.erase(it);
      continue;
    }
    const bool copy_in_flight = std::any_of(evaluating_.begin(), evaluating_.end(), [&](const auto& e) { return e.second == c->source_hash; });
    if (copy_in_flight) {
      ++it;
      continue;
    }
    evaluating_[c->id] = c->source_hash;
    const executors::Submission submission{c->id, c->source};
    const auto job = store_.job(c->id);
    if (job && job->executor == exec.name() && !job->handle.empty() && exec.attach(submission, job->handle))
      notify({EventKind::message, fmt::format("{}: re-attached to {} job {}", candidate_name(c->id), job->executor, job->handle)});
    else
      queue_.push_back(submission);
    it = waiting_.erase(it);
  }
  submit_queued();
}

void Search::submit_queued() {
  executors::Executor& exec = *executor_;
  while (!queue_.empty() && exec.outstanding() < exec.capacity()) {
    const std::string handle = exec.submit(queue_.front());
    if (!handle.empty()) store_.set_job(queue_.front().candidate, exec.name(), handle);
    queue_.pop_front();
  }
}

void Search::poll(std::chrono::milliseconds timeout) {
  if (time_budget_reached()) return cancel_in_flight();
  submit_queued();
  if (executor_->outstanding() == 0) throw Error("internal error: evaluations in flight but none with the executor");
  for (const auto& done : executor_->collect(timeout)) record(done);
  hand_out_waiting();
}

void Search::record(const executors::Completion& done) {
  evaluating_.erase(done.candidate);
  const EvalReport& report = done.report;
  store_.record_evaluation(done.candidate, report.to_json(), std::string(status_name(report.status)), report.speedup_vs_seed,
                           report.mean_median_ms(), report.roofline_fraction, done.build_seconds, done.eval_seconds);
  notify({EventKind::evaluated, report.message + (done.placement.empty() ? "" : " [" + done.placement + "]"), done.candidate,
          std::string(status_name(report.status)), report.speedup_vs_seed, false});
}

// The time budget holds inside a round too: what has not come back is cancelled and recorded as not run,
// except the measurements already on a device, which finish anyway and are kept.
void Search::cancel_in_flight() {
  executor_->cancel_all();
  queue_.clear();
  waiting_.clear();
  while (executor_->finishing() > 0)
    for (const auto& done : executor_->collect(std::chrono::milliseconds(100))) record(done);
  for (const auto& done : executor_->collect(std::chrono::milliseconds(0))) record(done);
  evaluating_.clear();
  for (const auto& round : state_.in_flight)
    for (int64_t id : round.candidates)
      if (!store_.candidate(id)->evaluated()) record_not_run(id);
}

void Search::record_not_run(int64_t candidate) {
  EvalReport cancelled;
  cancelled.task = task_.name;
  cancelled.backend = backend_.name();
  cancelled.status = Status::not_run;
  cancelled.message = "not evaluated: the time budget was reached during its round";
  store_.record_evaluation(candidate, cancelled.to_json(), std::string(status_name(Status::not_run)), 0, 0, 0, 0, 0);
  notify({EventKind::evaluated, cancelled.message, candidate, std::string(status_name(Status::not_run)), 0, false});
}

// Each round whose candidates are all back goes to the strategy, in the order they came in
// (idempotent after a restart: the observation is rebuilt from the committed evaluations).
void Search::observe_completed() {
  for (size_t i = 0; i < state_.in_flight.size();) {
    const RoundInFlight round = state_.in_flight[i];
    Observation observation{{}, round.exhausted, round.seed, round.round, round.cycle, round.node_id, round.node_payload};
    bool complete = true;
    for (int64_t id : round.candidates) {
      auto c = store_.candidate(id);
      if (!c->evaluated()) {
        complete = false;
        break;
      }
      if (c->status != status_name(Status::not_run)) observation.candidates.push_back(std::move(*c));  // no evidence
    }
    if (!complete) {
      ++i;
      continue;
    }
    for (const auto& c : observation.candidates)
      if (better(c, state_.best)) state_.best = Best{c.id, c.speedup_vs_seed, c.median_ms, c.roofline_fraction, timing_spread(c)};
    state_.in_flight.erase(state_.in_flight.begin() + std::ptrdiff_t(i));
    strategy_.observe(*this, observation);
    idle_ = false;
    save(round.seed ? "seed evaluated" : fmt::format("round {}", round.round));
  }
}

bool Search::do_finish() {
  if (!strategy_.finish(*this)) return false;
  // The finalists: the fastest distinct passing candidates by their search measurement (the seed's
  // own evaluation is the reference, not a finalist).
  std::vector<store::Candidate> passing;
  for (auto& c : store_.candidates())
    if (c.status == "passed" && !c.reused_from && c.source != brief_.seed_source) passing.push_back(std::move(c));
  std::stable_sort(passing.begin(), passing.end(), [](const auto& a, const auto& b) { return a.speedup_vs_seed > b.speedup_vs_seed; });
  state_.finalists.clear();
  for (size_t i = 0; i < passing.size() && int(i) < options_.finalists; ++i) state_.finalists.push_back(passing[i].id);
  state_.phase = Phase::retime;
  save();
  return true;
}

namespace {

std::vector<std::string> retime_notes(const RetimeResult& r) {
  std::vector<std::string> notes;
  if (!r.seed_message.empty()) notes.push_back("the seed failed during re-timing: " + r.seed_message);
  for (const auto& c : r.candidates)
    if (!c.passed) notes.push_back(fmt::format("{} failed during re-timing ({}): no finalist", candidate_name(c.id), c.message));
  const RetimedCandidate* best = r.best();
  if (!best) return notes;
  if (r.tied)
    notes.push_back(fmt::format("{} and {} are statistically tied: their {:.0f}% intervals overlap ([{:.2f}, {:.2f}]x and [{:.2f}, {:.2f}]x)",
                                candidate_name(best->id), candidate_name(r.candidates[1].id), 100 * r.confidence, best->speedup.low,
                                best->speedup.high, r.candidates[1].speedup.low, r.candidates[1].speedup.high));
  if (r.noisy)
    notes.push_back(fmt::format("warning: timings too noisy to decide: {}'s interval [{:.2f}, {:.2f}]x spans more than +-{:.0f}%; "
                                "re-run on a quieter machine or with more --retime-rounds",
                                candidate_name(best->id), best->speedup.low, best->speedup.high, 50 * (kNoisyWidthRatio - 1)));
  if (best->speedup.samples > 1 && best->speedup.contains(1.0))
    notes.push_back(fmt::format("{} is not significantly faster than the seed ([{:.2f}, {:.2f}]x)", candidate_name(best->id),
                                best->speedup.low, best->speedup.high));
  return notes;
}

}  // namespace

// The finalists re-timed against the seed in one sitting, interleaved (evaluator/retime): the run's
// result is chosen from these measurements, not from one possibly lucky evaluation each. Every
// measurement is committed on its own, so a resumed run re-times only what is missing.
void Search::do_retime() {
  // Where the backend cannot time (metal kernels in the emulator), there is nothing to re-time.
  if (!state_.finalists.empty() && options_.retime_rounds > 0 && backend_.timing_available()) {
    std::vector<RetimeEntry> entries{{0, brief_.seed_source}};
    for (int64_t id : state_.finalists) entries.push_back({id, store_.candidate(id)->source});
    std::set<std::pair<int, int64_t>> stored;
    for (const auto& r : store_.retimings()) stored.insert({r.round, r.candidate});
    notify({EventKind::message, fmt::format("re-timing {} finalists against the seed: {} interleaved rounds", state_.finalists.size(),
                                            options_.retime_rounds)});
    EvalOptions o;
    o.workloads = WorkloadSet::visible;
    retime(
        task_, backend_, o, entries, options_.retime_rounds, [&](int round, int64_t id) { return stored.count({round, id}) > 0; },
        [&](const RetimeMeasurement& m) {
          store_.record_retiming({m.round, m.id, std::string(status_name(m.report.status)), m.report.to_json(), 0});
          notify({EventKind::message, fmt::format("re-timing round {}/{}: {} {}{}", m.round + 1, options_.retime_rounds,
                                                  candidate_name(m.id), status_name(m.report.status),
                                                  m.report.status == Status::passed ? fmt::format(" ({:.4f} ms)", m.report.mean_median_ms())
                                                                                    : ": " + m.report.message)});
        });
    std::vector<RetimeMeasurement> measurements;
    for (const auto& r : store_.retimings()) measurements.push_back({r.round, r.candidate, EvalReport::from_json(r.report)});
    const RetimeResult result = analyze_retiming(measurements);
    state_.retiming = result.to_json();
    if (const RetimedCandidate* best = result.best())
      notify({EventKind::message, fmt::format("re-timed best: {} {:.2f}x vs seed ({:.0f}% interval [{:.2f}, {:.2f}], {} rounds)",
                                              candidate_name(best->id), best->speedup.estimate, 100 * result.confidence,
                                              best->speedup.low, best->speedup.high, best->speedup.samples)});
    for (const auto& note : retime_notes(result)) notify({EventKind::message, note});
  }
  state_.phase = Phase::final;
  save();
}

// The verdict: the best visible candidates, best first (by their re-timing where there is one),
// checked on the held-out workloads; the first that passes them is the run's result.
void Search::do_final() {
  std::vector<store::Candidate> passing;
  const RetimeResult retimed = state_.retiming.is_object() ? RetimeResult::from_json(state_.retiming) : RetimeResult{};
  if (retimed.best()) {
    for (const auto& c : retimed.candidates)  // a finalist that failed during its re-timing is out
      if (c.passed) passing.push_back(*store_.candidate(c.id));
  } else {
    for (auto& c : store_.candidates())
      if (c.status == "passed" && !c.reused_from) passing.push_back(std::move(c));
    std::stable_sort(passing.begin(), passing.end(), [](const auto& a, const auto& b) { return a.speedup_vs_seed > b.speedup_vs_seed; });
  }
  Verdict verdict;
  const bool has_held_out = !task_.workloads_for(backend_.name(), true).empty();
  EvalOptions o;
  o.workloads = WorkloadSet::held_out;
  o.seed_timings_dir = store_.dir();
  Evaluator evaluator(task_, backend_, o);
  // Out-of-bounds accesses that land in mapped memory pass every output check: a backend with a
  // memory checker runs the would-be result under it before it becomes the run's result.
  auto memory_checked = [&](const store::Candidate& c) {
    const std::optional<EvalReport> r = evaluator.memcheck(c.source);
    if (!r) return true;
    verdict.memcheck.push_back({{"candidate", c.id}, {"status", status_name(r->status)}, {"message", r->message}, {"log", r->log}});
    notify({EventKind::message, fmt::format("memory check of {}: {}{}", candidate_name(c.id), status_name(r->status),
                                                    r->status == Status::passed ? "" : " (" + r->message + ")")});
    return r->status == Status::passed;
  };
  for (size_t i = 0; i < passing.size() && i < 3; ++i) {
    if (has_held_out) {
      const EvalReport r = evaluator.evaluate(passing[i].source);
      verdict.checked.push_back({{"candidate", passing[i].id}, {"status", status_name(r.status)}, {"speedup_vs_seed", r.speedup_vs_seed},
                                  {"message", r.message}, {"report", r.to_json()}});
      notify({EventKind::message, fmt::format("held-out check of {}: {} ({:.2f}x vs seed)", candidate_name(passing[i].id),
                                                      status_name(r.status), r.speedup_vs_seed)});
      verdict.held_out_passed = r.status == Status::passed;
      if (r.status != Status::passed) continue;
      verdict.held_out_speedup = r.speedup_vs_seed;
    } else {
      verdict.note = "the task has no held-out workloads for this backend";
    }
    if (!memory_checked(passing[i])) continue;
    verdict.candidate = passing[i].id;
    break;
  }
  state_.verdict = verdict;
  state_.phase = Phase::done;
  if (verdict.candidate) {
    const auto best = store_.candidate(verdict.candidate);
    write_file_atomic(store_.dir() / ("best" + backend_.source_extension()), best->source);
  }
  save("final");
  notify({EventKind::final, verdict.candidate ? fmt::format("result: {}", candidate_name(verdict.candidate))
                                        : std::string("no candidate passed the visible and held-out workloads")});
}

std::string RunSummary::best_timing_text() const {
  if (best_median_ms <= 0) return "correct, not timed on this host";
  return fmt::format("{:.2f}x vs seed ({:.4f} ms, roofline {:.1f}%)", best_speedup, best_median_ms, 100 * best_roofline);
}

json RunSummary::to_json() const {
  json j = {{"task", task},
            {"backend", backend},
            {"run_dir", run_dir},
            {"proposer", proposer},
            {"strategy", strategy},
            {"phase", phase},
            {"stop_reason", stop_reason},
            {"rounds", rounds},
            {"rounds_budget", rounds_budget},
            {"cycles", cycles},
            {"evaluations", evaluations},
            {"candidates", candidates},
            {"elapsed_seconds", elapsed_seconds}};
  if (has_best) {
    j["best"] = {{"candidate_id", candidate_name(best_candidate)},
                 {"speedup_vs_seed", best_speedup},
                 {"median_ms", best_median_ms},
                 {"roofline_fraction", best_roofline},
                 {"held_out_passed", held_out_passed ? json(*held_out_passed) : json()},
                 {"held_out_speedup_vs_seed", held_out_speedup}};
    if (best_retimed)
      j["best"]["retimed_speedup_vs_seed"] = {{"estimate", best_retimed->estimate}, {"low", best_retimed->low},
                                              {"high", best_retimed->high}, {"rounds", best_retimed->samples}};
  } else {
    j["best"] = nullptr;
  }
  j["retiming"] = retiming;
  j["retime_notes"] = retime_lines;
  return j;
}

RunSummary summarize(const store::RunStore& store) {
  RunSummary s;
  const auto info = store.info();
  s.task = info.task_name;
  s.backend = info.backend;
  s.run_dir = std::filesystem::absolute(store.dir()).lexically_normal().string();
  s.proposer = info.config.value("proposer", json::object()).value("name", "");
  s.rounds_budget = info.config.value("search", json::object()).value("rounds", 0);
  s.evaluations = store.evaluation_count();
  s.candidates = int64_t(store.candidates().size());
  const auto stored = store.load_state();
  const LoopState state = stored ? LoopState::from_json(*stored) : LoopState{};
  s.phase = phase_name(state.phase);
  s.strategy = state.strategy;
  s.stop_reason = state.stop_reason;
  s.rounds = state.round;
  s.cycles = state.cycle;
  s.elapsed_seconds = state.elapsed_seconds;
  int64_t best = 0;
  if (state.verdict) {
    best = state.verdict->candidate;
    s.held_out_passed = state.verdict->held_out_passed;
    s.held_out_speedup = state.verdict->held_out_speedup;
  } else if (state.best) {
    best = state.best->candidate;
  }
  if (state.retiming.is_object()) {
    const RetimeResult r = RetimeResult::from_json(state.retiming);
    s.retiming = state.retiming;
    for (const auto& c : r.candidates)
      if (c.id == best && c.passed && c.speedup.samples > 0) {
        s.best_retimed = c.speedup;
        s.retime_lines.push_back(fmt::format("re-timed against the seed in {} interleaved rounds: {:.2f}x ({:.0f}% interval [{:.2f}, {:.2f}])",
                                             c.speedup.samples, c.speedup.estimate, 100 * r.confidence, c.speedup.low, c.speedup.high));
      }
    for (auto& note : retime_notes(r)) s.retime_lines.push_back(std::move(note));
  }
  if (best) {
    const auto c = store.candidate(best);
    s.has_best = true;
    s.best_candidate = best;
    s.best_speedup = c->speedup_vs_seed;
    s.best_median_ms = c->median_ms;
    s.best_roofline = c->roofline_fraction;
  }
  return s;
}

}  // namespace ksearch::search
