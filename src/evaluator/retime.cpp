#include "evaluator/retime.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::tasks::Task;

namespace ksearch::evaluator {

std::vector<size_t> retime_order(size_t count, int round) {
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = (i + size_t(round)) % count;
  return order;
}

void retime(const Task& task, Backend& backend, EvalOptions options, const std::vector<RetimeEntry>& entries, int rounds,
            const std::function<bool(int round, int64_t id)>& measured,
            const std::function<void(const RetimeMeasurement&)>& record) {
  options.compare_to_seed = false;  // the seed is timed in every round, beside the candidates
  Evaluator evaluator(task, backend, options);
  // Built once (the build cache has them from the search); a build that fails now fails every round.
  std::vector<BuildResult> builds(entries.size());
  std::vector<std::optional<EvalReport>> early(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    bool needed = false;
    for (int r = 0; r < rounds && !needed; ++r) needed = !measured(r, entries[i].id);
    if (needed) early[i] = evaluator.check_and_build(entries[i].source, builds[i]);
  }
  for (int r = 0; r < rounds; ++r)
    for (size_t i : retime_order(entries.size(), r)) {
      if (measured(r, entries[i].id)) continue;
      RetimeMeasurement m{r, entries[i].id, {}};
      try {
        m.report = early[i] ? *early[i] : evaluator.evaluate_built(builds[i]);
      } catch (const std::exception& e) {  // the evaluator's own failure: this measurement counts as failed
        m.report.task = task.name;
        m.report.backend = backend.name();
        m.report.status = Status::runtime_error;
        m.report.message = std::string("evaluation failed: ") + e.what();
      }
      record(m);
    }
}

const RetimedCandidate* RetimeResult::best() const {
  return !candidates.empty() && candidates.front().passed && candidates.front().speedup.samples > 0 ? &candidates.front() : nullptr;
}

RetimeResult analyze_retiming(const std::vector<RetimeMeasurement>& measurements, double confidence) {
  RetimeResult result;
  result.confidence = confidence;
  std::map<int, std::map<int64_t, const EvalReport*>> by_round;
  std::map<int64_t, RetimedCandidate> by_id;
  for (const auto& m : measurements) {
    by_round[m.round][m.id] = &m.report;
    if (m.id == 0) {
      if (m.report.status != Status::passed && result.seed_message.empty()) result.seed_message = m.report.message;
      continue;
    }
    RetimedCandidate& c = by_id[m.id];
    c.id = m.id;
    if (m.report.status != Status::passed && c.passed) {
      c.passed = false;
      c.message = fmt::format("round {}: {}", m.round + 1, m.report.message);
    }
  }
  // Per candidate: the ratios of the rounds in which both it and the seed passed.
  std::map<int64_t, std::vector<double>> round_ratios;
  std::map<int64_t, std::map<std::string, std::vector<double>>> workload_ratios;
  for (const auto& [round, reports] : by_round) {
    const auto seed = reports.find(0);
    if (seed == reports.end() || seed->second->status != Status::passed) continue;
    ++result.rounds;
    std::map<std::string, double> seed_ms;
    for (const auto& w : seed->second->workloads)
      if (w.timing.samples > 0) seed_ms[w.name] = w.timing.median;
    for (const auto& [id, report] : reports) {
      if (id == 0 || report->status != Status::passed) continue;
      std::vector<double> ratios;
      for (const auto& w : report->workloads) {
        const auto s = seed_ms.find(w.name);
        if (w.timing.samples == 0 || w.timing.median <= 0 || s == seed_ms.end()) continue;
        ratios.push_back(s->second / w.timing.median);
        workload_ratios[id][w.name].push_back(ratios.back());
      }
      if (!ratios.empty()) round_ratios[id].push_back(geometric_mean(ratios));
    }
  }
  for (auto& [id, c] : by_id) {
    c.speedup = ratio_interval(round_ratios[id], confidence);
    for (const auto& [name, ratios] : workload_ratios[id]) c.workloads.push_back({name, ratio_interval(ratios, confidence)});
    result.candidates.push_back(std::move(c));
  }
  std::stable_sort(result.candidates.begin(), result.candidates.end(), [](const RetimedCandidate& a, const RetimedCandidate& b) {
    if (a.passed != b.passed) return a.passed;
    return a.speedup.estimate > b.speedup.estimate;
  });
  if (const RetimedCandidate* best = result.best()) {
    result.noisy = best->speedup.width_ratio() > kNoisyWidthRatio;
    if (result.candidates.size() > 1 && result.candidates[1].passed && result.candidates[1].speedup.samples > 0)
      result.tied = best->speedup.overlaps(result.candidates[1].speedup);
  }
  return result;
}

namespace {

nlohmann::json interval_to_json(const RatioInterval& r) {
  return {{"estimate", r.estimate}, {"low", r.low}, {"high", r.high}, {"samples", r.samples}};
}

RatioInterval interval_from_json(const nlohmann::json& j) {
  return {j.value("estimate", 0.0), j.value("low", 0.0), j.value("high", 0.0), j.value("samples", 0)};
}

}  // namespace

nlohmann::json RetimeResult::to_json() const {
  nlohmann::json j = {{"rounds", rounds},   {"confidence", confidence}, {"seed_message", seed_message},
                      {"tied", tied},       {"noisy", noisy},           {"candidates", nlohmann::json::array()}};
  for (const auto& c : candidates) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const auto& w : c.workloads) workloads.push_back({{"name", w.name}, {"speedup", interval_to_json(w.speedup)}});
    j["candidates"].push_back(
        {{"candidate", c.id}, {"passed", c.passed}, {"message", c.message}, {"speedup", interval_to_json(c.speedup)}, {"workloads", workloads}});
  }
  return j;
}

RetimeResult RetimeResult::from_json(const nlohmann::json& j) {
  RetimeResult r;
  r.rounds = j.value("rounds", 0);
  r.confidence = j.value("confidence", 0.95);
  r.seed_message = j.value("seed_message", "");
  r.tied = j.value("tied", false);
  r.noisy = j.value("noisy", false);
  for (const auto& c : j.value("candidates", nlohmann::json::array())) {
    RetimedCandidate rc;
    rc.id = c.value("candidate", int64_t(0));
    rc.passed = c.value("passed", false);
    rc.message = c.value("message", "");
    rc.speedup = interval_from_json(c.value("speedup", nlohmann::json::object()));
    for (const auto& w : c.value("workloads", nlohmann::json::array()))
      rc.workloads.push_back({w.value("name", ""), interval_from_json(w.value("speedup", nlohmann::json::object()))});
    r.candidates.push_back(std::move(rc));
  }
  return r;
}

}  // namespace ksearch::evaluator
