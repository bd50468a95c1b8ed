#include "search/state.hpp"

#include <algorithm>

#include "core/error.hpp"

using nlohmann::json;

namespace ksearch::search {

namespace {

constexpr Phase kPhases[] = {Phase::init, Phase::next, Phase::code, Phase::evaluate, Phase::finish, Phase::retime, Phase::final, Phase::done};

json best_to_json(const Best& b) {
  return {{"candidate", b.candidate}, {"speedup", b.speedup}, {"median_ms", b.median_ms}, {"roofline", b.roofline}, {"spread", b.spread}};
}

json verdict_to_json(const Verdict& v) {
  return {{"candidate", v.candidate},
          {"held_out_passed", v.held_out_passed ? json(*v.held_out_passed) : json()},
          {"held_out_speedup", v.held_out_speedup},
          {"checked", v.checked},
          {"memcheck", v.memcheck},
          {"note", v.note}};
}

Verdict verdict_from_json(const json& j) {
  Verdict v;
  v.candidate = j.value("candidate", int64_t(0));
  if (j.contains("held_out_passed") && j["held_out_passed"].is_boolean()) v.held_out_passed = j["held_out_passed"].get<bool>();
  v.held_out_speedup = j.value("held_out_speedup", 0.0);
  v.checked = j.value("checked", json::array());
  v.memcheck = j.value("memcheck", json::array());
  v.note = j.value("note", "");
  return v;
}

json round_to_json(const RoundInFlight& r) {
  return {{"round", r.round},           {"cycle", r.cycle},         {"node_id", r.node_id}, {"node_payload", r.node_payload},
          {"candidates", r.candidates}, {"exhausted", r.exhausted}, {"seed", r.seed}};
}

RoundInFlight round_from_json(const json& j) {
  RoundInFlight r;
  r.round = j.at("round").get<int>();
  r.cycle = j.value("cycle", 0);
  r.node_id = j.value("node_id", "");
  r.node_payload = j.value("node_payload", json());
  r.candidates = j.at("candidates").get<std::vector<int64_t>>();
  r.exhausted = j.value("exhausted", false);
  r.seed = j.value("seed", false);
  return r;
}

// A state stored by the round-synchronous loop (before in_flight): its one round under evaluation.
void upgrade_round_state(const json& j, LoopState& s) {
  if (s.phase != Phase::evaluate) return;
  RoundInFlight r;
  r.seed = j.value("seed_round", false);
  r.round = r.seed ? 0 : s.round + 1;  // `round` then counted rounds completed
  r.cycle = s.cycle;
  if (!s.writing.empty()) {
    r.node_id = s.writing.front().request.node_id;
    r.node_payload = s.writing.front().request.node_payload;
  }
  r.candidates = j.value("round_candidates", std::vector<int64_t>{});
  r.exhausted = j.value("round_exhausted", false);
  s.round = std::max(s.round, r.round);
  s.writing.clear();
  s.in_flight.push_back(std::move(r));
}

}  // namespace

std::string phase_name(Phase phase) {
  switch (phase) {
    case Phase::init: return "init";
    case Phase::next: return "next";
    case Phase::code: return "code";
    case Phase::evaluate: return "evaluate";
    case Phase::finish: return "finish";
    case Phase::retime: return "retime";
    case Phase::final: return "final";
    case Phase::done: return "done";
  }
  return "?";
}

Phase parse_phase(const std::string& name) {
  for (Phase p : kPhases)
    if (phase_name(p) == name) return p;
  throw Error("run store holds an unknown search phase '" + name + "'");
}

json LoopState::to_json() const {
  json j = {{"phase", phase_name(phase)},
            {"round", round},
            {"cycle", cycle},
            {"elapsed_seconds", elapsed_seconds},
            {"stop_reason", stop_reason},
            {"stopped_by_proposer", stopped_by_proposer},
            {"planned", planned},
            {"writing", json::array()},
            {"in_flight", json::array()},
            {"best", best ? best_to_json(*best) : json()},
            {"finalists", finalists},
            {"retiming", retiming},
            {"final", verdict ? verdict_to_json(*verdict) : json()},
            {"strategy", {{"name", strategy}, {"state", strategy_state}}}};
  for (const auto& w : writing) j["writing"].push_back({{"id", w.id}, {"cycle", w.cycle}, {"request", w.request.to_json()}});
  for (const auto& r : in_flight) j["in_flight"].push_back(round_to_json(r));
  return j;
}

LoopState LoopState::from_json(const json& j) {
  try {
    LoopState s;
    s.phase = parse_phase(j.at("phase").get<std::string>());
    s.round = j.value("round", 0);
    s.cycle = j.value("cycle", 0);
    s.elapsed_seconds = j.value("elapsed_seconds", 0.0);
    s.stop_reason = j.value("stop_reason", "");
    s.stopped_by_proposer = j.value("stopped_by_proposer", false);
    if (j.contains("writing")) {
      for (const auto& w : j["writing"])
        s.writing.push_back({w.at("id").get<int64_t>(), w.value("cycle", 0), proposers::CodeRequest::from_json(w.at("request"))});
    } else if (j.contains("plan") && j["plan"].is_object()) {  // stored before several rounds could be written at once
      s.writing.push_back({s.round + 1, s.cycle, proposers::CodeRequest::from_json(j["plan"])});
    }
    if (j.contains("in_flight"))
      for (const auto& r : j["in_flight"]) s.in_flight.push_back(round_from_json(r));
    else
      upgrade_round_state(j, s);
    s.planned = j.value("planned", s.round + int64_t(s.writing.size()));
    if (j.contains("best") && j["best"].is_object()) {
      const json& b = j["best"];
      s.best = Best{b.at("candidate").get<int64_t>(), b.value("speedup", 0.0), b.value("median_ms", 0.0), b.value("roofline", 0.0),
                    b.value("spread", 0.0)};
    }
    s.finalists = j.value("finalists", std::vector<int64_t>{});
    s.retiming = j.value("retiming", json());
    if (j.contains("final") && j["final"].is_object()) s.verdict = verdict_from_json(j["final"]);
    const json strategy = j.value("strategy", json::object());
    s.strategy = strategy.value("name", "");
    s.strategy_state = strategy.value("state", json());
    return s;
  } catch (const json::exception& e) {
    throw Error(std::string("malformed search state in the run store: ") + e.what());
  }
}

}  // namespace ksearch::search
