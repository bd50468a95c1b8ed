#include "planner/search.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <numeric>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"

using nlohmann::json;

namespace ksearch::planner {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SelectOptions, difficulty_cap, exploration, gain_weight)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SearchOptions, rounds, minutes, parallel, seed_eval, stagnation_window,
                                                frontier_min, reask, select)

json SearchOptions::to_json() const { return json(*this); }
SearchOptions SearchOptions::from_json(const json& j) { return j.get<SearchOptions>(); }

namespace {

std::string cid(int64_t id) { return id ? "c" + std::to_string(id) : "seed"; }

Feedback feedback_of(const store::Candidate& c) {
  Feedback f;
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
    for (const auto& w : r.workloads)
      if (w.status != Status::passed) {
        f.failing_workload = w.name + (w.message.empty() ? "" : ": " + w.message);
        f.max_abs_err = w.max_abs_err;
        f.max_rel_err = w.max_rel_err;
        break;
      }
  }
  return f;
}

bool better(const store::Candidate& c, const json& best) {
  if (c.status != "passed") return false;
  return best.is_null() || c.speedup_vs_seed > best.value("speedup", 0.0);
}

}  // namespace

Search::Search(store::RunStore& store, const Task& task, Backend& backend, proposers::Proposer& proposer,
               SearchOptions options, SearchObserver observer)
    : store_(store), task_(task), backend_(backend), proposer_(proposer), options_(options), observer_(std::move(observer)) {
  options_.parallel = std::max(options_.parallel, 1);
  session_start_ = std::chrono::steady_clock::now();
  state_ = store_.load_state().value_or(json{{"phase", "init"},
                                             {"round", 0},
                                             {"cycle", 0},
                                             {"request_seq", 0},
                                             {"elapsed_seconds", 0.0},
                                             {"stop_reason", ""},
                                             {"cycle_state", nullptr},
                                             {"round_candidates", json::array()},
                                             {"best", nullptr},
                                             {"final", nullptr}});
  elapsed_before_ = state_.value("elapsed_seconds", 0.0);
  if (auto m = store_.latest_world_model()) model_ = WorldModel::from_json(*m);
}

double Search::elapsed() const {
  return elapsed_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
}

bool Search::budget_spent() const {
  if (state_["round"].get<int>() >= options_.rounds) return true;
  if (!proposer_.stop_reason().empty()) return true;
  return options_.minutes > 0 && elapsed() >= options_.minutes * 60;
}

void Search::save(const std::string& reason) {
  state_["elapsed_seconds"] = elapsed();
  store_.transaction([&] {
    store_.save_state(state_);
    if (!reason.empty()) store_.save_world_model(state_["round"].get<int>(), reason, model_.to_json());
  });
}

Progress Search::progress() const {
  Progress p;
  p.phase = state_["phase"];
  p.round = state_["round"];
  p.rounds = options_.rounds;
  p.cycle = state_["cycle"];
  p.evaluations = store_.evaluation_count();
  p.elapsed_seconds = elapsed();
  if (state_["cycle_state"].is_object()) {
    p.node_id = state_["cycle_state"]["node_id"];
    if (const Node* n = model_.find(p.node_id); n && n->action) p.action = n->action->title;
  }
  if (state_["best"].is_object()) {
    p.best_speedup = state_["best"]["speedup"];
    p.best_candidate = state_["best"]["candidate"];
  }
  return p;
}

void Search::notify(SearchEvent event) {
  if (event.kind == SearchEvent::Kind::message || event.kind == SearchEvent::Kind::cycle_end ||
      event.kind == SearchEvent::Kind::final)
    store_.add_event(state_["round"].get<int>(), event.kind == SearchEvent::Kind::message ? "message" : "cycle", event.text);
  if (observer_) observer_(event, progress());
}

TaskBrief Search::brief() const {
  TaskBrief b;
  b.task = task_.name;
  b.backend = backend_.name();
  b.description = task_.description;
  b.entry = backend_.entry_description(task_);
  b.hardware = backend_.profile().prose;
  b.seed_source = read_file(task_.entry(backend_.name()).seed);
  b.task_file = task_.file.string();
  for (const Workload* w : task_.workloads_for(backend_.name(), false)) {
    std::string line = w->name + ":";
    for (const auto& [axis, value] : w->axes) line += fmt::format(" {}={}", axis, value);
    b.workloads.push_back(line);
  }
  return b;
}

// One proposer request: consumes an answer submitted from outside if there is one, otherwise asks
// the proposer (retrying failures); records every call. nullopt: the request is left pending.
template <class Reply, class Request, class Method>
std::optional<Reply> Search::ask(Role role, const Request& request, Method method) {
  const int round = state_["round"];
  auto pending = store_.pending();
  if (pending && pending->role == role_name(role) && pending->answer) {
    Reply reply;
    try {
      reply = Reply::from_json(*pending->answer);
    } catch (const Error& e) {
      // Drop the unusable answer so that a corrected one can be submitted for the same request.
      store_.set_pending({pending->seq, pending->role, pending->request, std::nullopt});
      throw Error(fmt::format("the answer submitted to request {} ({}) is unusable: {}", pending->seq, pending->role, e.what()));
    }
    store::ProposerCall call;
    call.round = round;
    call.role = role_name(role);
    call.proposer = proposer_.name() + " (submitted)";
    call.prompt = pending->request.dump();
    call.response = pending->answer->dump();
    store_.add_call(call);
    store_.clear_pending();
    return reply;
  }
  if (!pending || pending->role != role_name(role)) {
    state_["request_seq"] = state_["request_seq"].get<int64_t>() + 1;
    store_.set_pending({state_["request_seq"].get<int64_t>(), role_name(role), request.to_json(), std::nullopt});
  }
  for (int attempt = 0;; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    store::ProposerCall call;
    call.round = round;
    call.role = role_name(role);
    call.proposer = proposer_.name();
    try {
      auto answer = (proposer_.*method)(request);
      if (!answer) return std::nullopt;  // left pending (agent)
      if (answer->calls.empty()) {
        call.prompt = request.to_json().dump();
        call.response = answer->reply.to_json().dump();
        call.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        store_.add_call(call);
      }
      for (const auto& c : answer->calls)
        store_.add_call({0, round, role_name(role), proposer_.name(), c.model, c.prompt, c.response, c.input_tokens,
                         c.output_tokens, c.cost_usd, c.seconds, c.error, 0});
      store_.clear_pending();
      return std::move(answer->reply);
    } catch (const std::exception& e) {
      const auto* failure = dynamic_cast<const proposers::ProposerError*>(&e);
      if (failure && !failure->calls().empty()) {
        for (const auto& c : failure->calls())
          store_.add_call({0, round, role_name(role), proposer_.name(), c.model, c.prompt, c.response, c.input_tokens,
                           c.output_tokens, c.cost_usd, c.seconds, c.error, 0});
      } else {
        call.prompt = request.to_json().dump();
        call.error = e.what();
        call.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        store_.add_call(call);
      }
      notify({SearchEvent::Kind::message, fmt::format("proposer {} failed ({}): {}", role_name(role), attempt + 1, e.what())});
      if (attempt >= kProposerRetries || !proposer_.stop_reason().empty()) {
        store_.clear_pending();
        throw;
      }
    }
  }
}

void Search::update_signals() {
  double seed_ms = 0;
  {
    std::vector<double> v;
    for (const auto& c : store_.candidates())
      if (c.report.is_object())
        for (const auto& w : c.report.value("workloads", json::array()))
          if (w.value("seed_ms", 0.0) > 0) v.push_back(w["seed_ms"].get<double>());
    if (!v.empty()) seed_ms = std::exp(std::accumulate(v.begin(), v.end(), 0.0, [](double a, double b) { return a + std::log(b); }) / double(v.size()));
  }
  model_.signals["round"] = state_["round"];
  model_.signals["rounds_budget"] = options_.rounds;
  model_.signals["reference_latency_ms"] = seed_ms;
  if (state_["best"].is_object()) {
    model_.signals["best_speedup_vs_seed"] = state_["best"]["speedup"];
    model_.signals["best_latency_ms"] = state_["best"]["median_ms"];
    model_.signals["best_candidate"] = cid(state_["best"]["candidate"]);
  }
}

Search::Outcome Search::run() {
  for (;;) {
    const std::string phase = state_["phase"];
    if (phase == "done") return Outcome::finished;
    if (phase == "init") {
      if (!do_init()) return Outcome::waiting;
    } else if (phase == "select") {
      if (!do_select()) return Outcome::waiting;
    } else if (phase == "code") {
      if (!do_code()) return Outcome::waiting;
    } else if (phase == "evaluate") {
      do_evaluate();
    } else if (phase == "refine") {
      if (!do_refine()) return Outcome::waiting;
    } else if (phase == "final") {
      do_final();
    } else {
      throw Error("run store holds an unknown search phase '" + phase + "'");
    }
  }
}

bool Search::do_init() {
  if (model_.nodes.empty()) {
    auto reply = ask<InitializeReply>(Role::initialize, InitializeRequest{brief()}, &proposers::Proposer::initialize);
    if (!reply) return false;
    model_ = WorldModel::from_json(reply->world_model);
    // The root stands for the seed: its solution is code-owned.
    Node* root = model_.find(model_.root_id);
    if (!root->solution) root->solution = Solution{"seed", "passed", 1.0, 0, 0, root->payload};
    update_signals();
    notify({SearchEvent::Kind::message, fmt::format("world model: {} hypotheses under the root", model_.children(model_.root_id).size())});
  }
  if (options_.seed_eval && state_["round_candidates"].empty()) {
    store::Candidate c;
    c.round = 0;
    c.node_id = model_.root_id;
    c.proposer = "seed";
    c.source = read_file(task_.entry(backend_.name()).seed);
    c.source_hash = sha256_hex(c.source);
    c.note = "the task's seed";
    c.payload = model_.find(model_.root_id)->payload;
    state_["phase"] = "evaluate";
    state_["seed_round"] = true;
    state_["elapsed_seconds"] = elapsed();
    store_.transaction([&] {
      state_["round_candidates"] = {store_.add_candidate(c)};
      store_.save_state(state_);
      store_.save_world_model(0, "initialize", model_.to_json());
    });
    return true;
  }
  state_["phase"] = "select";
  save("initialize");
  return true;
}

bool Search::do_select() {
  if (budget_spent()) {
    state_["stop_reason"] = state_["round"].get<int>() >= options_.rounds ? "round budget spent"
                            : !proposer_.stop_reason().empty() ? proposer_.stop_reason()
                                                               : "time budget spent";
    state_["phase"] = "final";
    save();
    return true;
  }
  const int attempts = int(store_.candidates().size());
  if (int(rank_frontier(model_, attempts, options_.select).size()) < options_.frontier_min) {
    std::string errors;
    for (int k = 0; k <= options_.reask; ++k) {
      ProposeRequest request{brief(), model_.to_json(), "the frontier has no selectable hypothesis left", errors, kMaxNewNodesPerEdit};
      std::optional<ProposeReply> reply;
      try {
        reply = ask<ProposeReply>(Role::propose, request, &proposers::Proposer::propose);
      } catch (const std::exception&) {
        break;  // recorded; select from what there is
      }
      if (!reply) return false;
      const EditResult r = apply_edit_script(model_, reply->edit_script);
      if (r.ok) {
        if (!r.inserted.empty()) save("propose");
        break;
      }
      errors = r.error_text();
      notify({SearchEvent::Kind::message, "edit script rejected:\n" + errors});
    }
  }
  const auto chosen = select_node(model_, attempts, options_.select);
  if (!chosen) {
    state_["stop_reason"] = "search space exhausted (no selectable hypothesis)";
    state_["phase"] = "final";
    save();
    return true;
  }
  const Node* node = model_.find(*chosen);
  const Node* parent = model_.find(node->parent_id);
  int64_t parent_candidate = 0;
  double parent_speedup = 1;
  if (parent && parent->solution) {
    const std::string& id = parent->solution->candidate_id;
    if (id.size() > 1 && id[0] == 'c') parent_candidate = std::stoll(id.substr(1));
    if (parent->solution->speedup_vs_seed > 0) parent_speedup = parent->solution->speedup_vs_seed;
  }
  model_.active_leaf_id = *chosen;
  state_["cycle"] = state_["cycle"].get<int>() + 1;
  state_["cycle_state"] = {{"node_id", *chosen},       {"rounds", 0},        {"since_improvement", 0},
                           {"best_candidate", 0},     {"best_speedup", 0.0}, {"passed", false},
                           {"attempts", 0},           {"exhausted", false},  {"feedback", json::array()},
                           {"parent_candidate", parent_candidate}, {"parent_speedup", parent_speedup}};
  state_["phase"] = "code";
  save("select " + *chosen);
  notify({SearchEvent::Kind::cycle_start, fmt::format("cycle {}: {} {}", state_["cycle"].get<int>(), *chosen,
                                                      node->action ? node->action->title : "")});
  return true;
}

bool Search::do_code() {
  json& cs = state_["cycle_state"];
  const Node* node = model_.find(cs["node_id"]);
  if (!node) throw Error("the active node vanished from the world model");
  CodeRequest request;
  request.task = brief();
  request.node_id = node->node_id;
  request.action = node->action ? json{{"title", node->action->title},
                                       {"description", node->action->description},
                                       {"difficulty_1_to_5", node->action->difficulty_1_to_5},
                                       {"score_0_to_1", node->action->score_0_to_1},
                                       {"expected_vs_baseline_factor", node->action->expected_vs_baseline_factor},
                                       {"rationale", node->action->rationale}}
                                : json::object();
  request.node_payload = node->payload;
  // Known-good code: the cycle's best so far, else the parent's solution, else the seed.
  request.parent_candidate = cs["passed"].get<bool>() ? cs["best_candidate"].get<int64_t>() : cs["parent_candidate"].get<int64_t>();
  if (request.parent_candidate) {
    auto parent = store_.candidate(request.parent_candidate);
    request.parent_source = parent->source;
    request.parent_payload = parent->payload;
  } else {
    request.parent_source = read_file(task_.entry(backend_.name()).seed);
    if (const Node* root = model_.find(model_.root_id)) request.parent_payload = root->payload;
  }
  request.world_view = model_.compact_view();
  request.mode = cs["passed"].get<bool>() ? "improve" : "debug";
  request.round_in_cycle = cs["rounds"];
  request.count = options_.parallel;
  for (const auto& f : cs["feedback"]) request.feedback.push_back(Feedback::from_json(f));
  request.best_speedup = state_["best"].is_object() ? state_["best"]["speedup"].get<double>() : 1.0;

  const int round = state_["round"].get<int>() + 1;
  notify({SearchEvent::Kind::round_start, fmt::format("round {}: {}", round, request.action.value("title", node->node_id))});
  std::optional<CodeReply> reply;
  try {
    reply = ask<CodeReply>(Role::write_code, request, &proposers::Proposer::write_code);
  } catch (const std::exception&) {
    if (!proposer_.stop_reason().empty()) {  // e.g. the model budget is spent: close the cycle, then stop
      state_["phase"] = "refine";
      save();
      return true;
    }
    reply = CodeReply{};  // recorded by ask(): an empty round
  }
  if (!reply) return false;
  // Candidates and the phase change in one transaction: a crash leaves either both or neither.
  state_["elapsed_seconds"] = elapsed();
  store_.transaction([&] {
    std::vector<int64_t> ids;
    for (const auto& cc : reply->candidates) {
      if (int(ids.size()) >= options_.parallel) break;
      store::Candidate c;
      c.round = round;
      c.cycle = state_["cycle"];
      c.node_id = node->node_id;
      c.parent_id = request.parent_candidate;
      c.proposer = proposer_.name();
      c.source = cc.source;
      c.source_hash = sha256_hex(cc.source);
      c.note = cc.note;
      c.payload = cc.payload;
      ids.push_back(store_.add_candidate(c));
    }
    cs["exhausted"] = reply->exhausted;
    state_["round_candidates"] = ids;
    state_["phase"] = "evaluate";
    store_.save_state(state_);
  });
  return true;
}

// Builds every candidate of the round concurrently, then evaluates them one at a time (timing is
// serialized anyway), committing each evaluation as soon as it is done.
void Search::evaluate_round(const std::vector<int64_t>& ids) {
  EvalOptions eval_options;
  eval_options.workloads = WorkloadSet::visible;  // held-out workloads are kept for the final verdict
  eval_options.seed_timings_dir = store_.dir();
  Evaluator evaluator(task_, backend_, eval_options);
  backend_.profile();  // initialized once here: check_and_build runs on several threads
  struct Job {
    store::Candidate c;
    std::optional<store::Candidate> previous;
    std::future<std::pair<std::optional<EvalReport>, BuildResult>> build;
  };
  std::vector<Job> jobs;
  for (int64_t id : ids) {
    auto c = store_.candidate(id);
    if (!c || c->evaluated()) continue;  // committed before a restart
    Job job{*c, store_.evaluated_by_hash(c->source_hash), {}};
    if (!job.previous) {
      job.build = std::async(std::launch::async, [&evaluator, source = c->source] {
        BuildResult build;
        auto early = evaluator.check_and_build(source, build);
        return std::make_pair(std::move(early), std::move(build));
      });
    }
    jobs.push_back(std::move(job));
  }
  for (auto& job : jobs) {
    store::Candidate& c = job.c;
    // A source seen before (possibly earlier in this round) is never evaluated twice.
    if (!job.previous) job.previous = store_.evaluated_by_hash(c.source_hash);
    if (job.previous) {
      if (job.build.valid()) job.build.wait();
      const auto& p = *job.previous;
      store_.record_evaluation(c.id, p.report, p.status, p.speedup_vs_seed, p.median_ms, p.roofline_fraction, 0, 0, p.id);
      notify({SearchEvent::Kind::evaluated, fmt::format("{} = {} (same source)", cid(c.id), cid(p.id)), c.id, p.status,
              p.speedup_vs_seed, true});
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    auto [early, build] = job.build.get();
    EvalReport report;
    try {
      report = early ? *early : evaluator.evaluate_built(build);
    } catch (const std::exception& e) {  // an evaluator/infrastructure failure, not the candidate's
      report.task = task_.name;
      report.backend = backend_.name();
      report.status = Status::runtime_error;
      report.message = std::string("evaluation failed: ") + e.what();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    store_.record_evaluation(c.id, report.to_json(), std::string(status_name(report.status)), report.speedup_vs_seed,
                             report.mean_median_ms(), report.roofline_fraction, build.seconds, seconds);
    notify({SearchEvent::Kind::evaluated, report.message, c.id, std::string(status_name(report.status)),
            report.speedup_vs_seed, false});
  }
}

void Search::do_evaluate() {
  std::vector<int64_t> ids = state_["round_candidates"].get<std::vector<int64_t>>();
  evaluate_round(ids);
  // Round bookkeeping (idempotent: recomputed from the committed evaluations).
  std::vector<store::Candidate> done;
  for (int64_t id : ids) done.push_back(*store_.candidate(id));
  for (const auto& c : done)
    if (better(c, state_["best"]))
      state_["best"] = {{"candidate", c.id}, {"speedup", c.speedup_vs_seed}, {"median_ms", c.median_ms}, {"roofline", c.roofline_fraction}};
  if (!done.empty()) model_.signals["last_status"] = done.back().status;
  if (!done.empty()) model_.signals["last_latency_ms"] = done.back().median_ms;

  if (state_.value("seed_round", false)) {  // the seed's own evaluation: numbers for the root
    state_.erase("seed_round");
    if (!done.empty()) {
      Node* root = model_.find(model_.root_id);
      root->solution = Solution{cid(done[0].id), done[0].status, done[0].speedup_vs_seed, done[0].median_ms,
                                done[0].roofline_fraction, done[0].payload};
    }
    state_["round_candidates"] = json::array();
    state_["phase"] = "select";
    update_signals();
    save("seed evaluated");
    return;
  }

  json& cs = state_["cycle_state"];
  Node* node = model_.find(cs["node_id"]);
  bool improved = false;
  for (const auto& c : done) {
    if (node) node->attempts++;
    cs["attempts"] = cs["attempts"].get<int>() + 1;
    cs["feedback"].push_back(feedback_of(c).to_json());
    if (c.status == "passed" && (!cs["passed"].get<bool>() || c.speedup_vs_seed > cs["best_speedup"].get<double>())) {
      cs["passed"] = true;
      cs["best_candidate"] = c.id;
      cs["best_speedup"] = c.speedup_vs_seed;
      improved = true;
    }
  }
  while (cs["feedback"].size() > 4) cs["feedback"].erase(cs["feedback"].begin());  // the latest few suffice
  cs["rounds"] = cs["rounds"].get<int>() + 1;
  cs["since_improvement"] = improved ? 0 : cs["since_improvement"].get<int>() + 1;
  state_["round"] = state_["round"].get<int>() + 1;
  state_["round_candidates"] = json::array();
  const bool cycle_over = cs["exhausted"].get<bool>() || cs["since_improvement"].get<int>() >= options_.stagnation_window ||
                          budget_spent();
  state_["phase"] = cycle_over ? "refine" : "code";
  update_signals();
  save(fmt::format("round {}", state_["round"].get<int>()));
}

bool Search::do_refine() {
  json& cs = state_["cycle_state"];
  Node* node = model_.find(cs["node_id"]);
  if (!node) throw Error("the active node vanished from the world model");
  CycleSummary summary;
  summary.node_id = node->node_id;
  summary.rounds = cs["rounds"];
  summary.attempts = cs["attempts"];
  summary.passed = cs["passed"];
  summary.best_candidate = cs["best_candidate"];
  summary.best_speedup = cs["best_speedup"];
  summary.parent_speedup = cs["parent_speedup"];
  summary.predicted_factor = node->action ? node->action->expected_vs_baseline_factor : 1;
  summary.observed_factor = summary.passed && summary.parent_speedup > 0 ? summary.best_speedup / summary.parent_speedup : 0;
  if (!cs.value("finalized", false)) {
    // The code's half of the refinement: attach the cycle's best, or mark the node too hard.
    node->cycles++;
    if (summary.passed) {
      const auto best = store_.candidate(summary.best_candidate);
      node->solution = Solution{cid(best->id), best->status, best->speedup_vs_seed, best->median_ms, best->roofline_fraction,
                                best->payload};
      summary.best_payload = best->payload;
    } else {
      node->too_hard = true;
      if (node->action) node->action->score_0_to_1 *= 0.5;
    }
    node->notes += fmt::format("{}cycle {}: {} rounds, {} attempts, {}; predicted x{:.2f}, observed {}.", node->notes.empty() ? "" : "\n",
                               state_["cycle"].get<int>(), summary.rounds, summary.attempts,
                               summary.passed ? "passed" : "nothing passed (too hard)", summary.predicted_factor,
                               summary.passed ? fmt::format("x{:.2f} ({:.2f}x vs seed)", summary.observed_factor, summary.best_speedup)
                                              : std::string("-"));
    cs["finalized"] = true;
    notify({SearchEvent::Kind::cycle_end,
            fmt::format("cycle {} on {}: {}", state_["cycle"].get<int>(), node->node_id,
                        summary.passed ? fmt::format("{:.2f}x vs seed ({})", summary.best_speedup, cid(summary.best_candidate))
                                       : std::string("no passing candidate, marked too hard"))});
    save("cycle end " + node->node_id);
  } else if (summary.passed) {
    summary.best_payload = store_.candidate(summary.best_candidate)->payload;
  }
  std::string errors;
  for (int k = 0; k <= options_.reask; ++k) {
    RefineRequest request{brief(), model_.to_json(), summary, errors, kMaxNewNodesPerEdit};
    std::optional<RefineReply> reply;
    try {
      reply = ask<RefineReply>(Role::refine, request, &proposers::Proposer::refine);
    } catch (const std::exception&) {
      break;  // recorded; the tree stays as the code left it
    }
    if (!reply) return false;
    const EditResult r = apply_edit_script(model_, reply->edit_script);
    if (r.ok) {
      if (Node* n = model_.find(summary.node_id); n && !reply->reflection.empty()) n->notes += "\nreflection: " + reply->reflection;
      break;
    }
    errors = r.error_text();
    notify({SearchEvent::Kind::message, "refine edit script rejected:\n" + errors});
  }
  state_["cycle_state"] = nullptr;
  model_.active_leaf_id.clear();
  state_["phase"] = "select";
  save("refine");
  return true;
}

// The verdict: the best visible candidates, best first, checked on the held-out workloads; the
// first that passes them is the run's result.
void Search::do_final() {
  std::vector<store::Candidate> passing;
  for (auto& c : store_.candidates())
    if (c.status == "passed" && !c.reused_from) passing.push_back(std::move(c));
  std::stable_sort(passing.begin(), passing.end(), [](const auto& a, const auto& b) { return a.speedup_vs_seed > b.speedup_vs_seed; });
  json final = {{"candidate", 0}, {"held_out_passed", nullptr}, {"checked", json::array()}};
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
    final["memcheck"].push_back({{"candidate", c.id}, {"status", status_name(r->status)}, {"message", r->message}, {"log", r->log}});
    notify({SearchEvent::Kind::message, fmt::format("memory check of {}: {}{}", cid(c.id), status_name(r->status),
                                                    r->status == Status::passed ? "" : " (" + r->message + ")")});
    return r->status == Status::passed;
  };
  for (size_t i = 0; i < passing.size() && i < 3; ++i) {
    if (has_held_out) {
      const EvalReport r = evaluator.evaluate(passing[i].source);
      final["checked"].push_back({{"candidate", passing[i].id}, {"status", status_name(r.status)}, {"speedup_vs_seed", r.speedup_vs_seed},
                                  {"message", r.message}, {"report", r.to_json()}});
      notify({SearchEvent::Kind::message, fmt::format("held-out check of {}: {} ({:.2f}x vs seed)", cid(passing[i].id),
                                                      status_name(r.status), r.speedup_vs_seed)});
      final["held_out_passed"] = r.status == Status::passed;
      if (r.status != Status::passed) continue;
      final["held_out_speedup"] = r.speedup_vs_seed;
    } else {
      final["note"] = "the task has no held-out workloads for this backend";
    }
    if (!memory_checked(passing[i])) continue;
    final["candidate"] = passing[i].id;
    break;
  }
  state_["final"] = final;
  state_["phase"] = "done";
  if (final["candidate"].get<int64_t>()) {
    const auto best = store_.candidate(final["candidate"]);
    write_file_atomic(store_.dir() / ("best" + backend_.source_extension()), best->source);
  }
  save("final");
  notify({SearchEvent::Kind::final, final["candidate"].get<int64_t>()
                                        ? fmt::format("result: {}", cid(final["candidate"]))
                                        : std::string("no candidate passed the visible and held-out workloads")});
}

json RunSummary::to_json() const {
  json j = {{"task", task},
            {"backend", backend},
            {"run_dir", run_dir},
            {"proposer", proposer},
            {"phase", phase},
            {"stop_reason", stop_reason},
            {"rounds", rounds},
            {"rounds_budget", rounds_budget},
            {"cycles", cycles},
            {"evaluations", evaluations},
            {"candidates", candidates},
            {"elapsed_seconds", elapsed_seconds}};
  if (has_best)
    j["best"] = {{"candidate_id", cid(best_candidate)},
                 {"speedup_vs_seed", best_speedup},
                 {"median_ms", best_median_ms},
                 {"roofline_fraction", best_roofline},
                 {"held_out_passed", held_out_passed ? json(*held_out_passed) : json()},
                 {"held_out_speedup_vs_seed", held_out_speedup}};
  else
    j["best"] = nullptr;
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
  const json state = store.load_state().value_or(json::object());
  s.phase = state.value("phase", "init");
  s.stop_reason = state.value("stop_reason", "");
  s.rounds = state.value("round", 0);
  s.cycles = state.value("cycle", 0);
  s.elapsed_seconds = state.value("elapsed_seconds", 0.0);
  int64_t best = 0;
  const json final = state.value("final", json());
  if (final.is_object()) {
    best = final.value("candidate", int64_t(0));
    if (final["held_out_passed"].is_boolean()) s.held_out_passed = final["held_out_passed"].get<bool>();
    s.held_out_speedup = final.value("held_out_speedup", 0.0);
  } else if (state.value("best", json()).is_object()) {
    best = state["best"].value("candidate", int64_t(0));
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

}  // namespace ksearch::planner
