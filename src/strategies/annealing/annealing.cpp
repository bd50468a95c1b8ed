#include "strategies/annealing/annealing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "proposers/builtin_proposer.hpp"
#include "search/search.hpp"
#include "search/strategy.hpp"
#include "core/json_text.hpp"

using nlohmann::json;

namespace ksearch::annealing {

double acceptance_probability(double current, double candidate, double t) {
  if (std::isinf(current)) return 1;
  if (std::isinf(candidate)) return 0;
  if (candidate < current) return 1;
  return std::exp(-((candidate - current) / current) / t);
}

double temperature(const Options& o, int k, int steps) {
  const double progress = steps > 1 ? std::clamp(double(k) / double(steps - 1), 0.0, 1.0) : 0.0;
  return o.t_start * std::pow(o.t_end / o.t_start, progress);
}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A configuration is the built-in proposer's payload: {"family": F, "knobs": {K: V, ...}}.
std::string key_of(const json& config) {
  return config.value("family", "") + "|" + json_text(config.value("knobs", json::object()));
}

json config_of(const proposers::builtin::Family& f, const proposers::builtin::KnobValues& knobs) {
  return {{"family", f.name}, {"knobs", knobs}};
}

std::string describe(const json& config) {
  std::string knobs;
  for (const auto& [k, v] : config["knobs"].items()) knobs += fmt::format("{}{}={}", knobs.empty() ? "" : ", ", k, v.get<int64_t>());
  return fmt::format("{} ({})", config["family"].get<std::string>(), knobs);
}

class AnnealingStrategy : public search::Strategy {
 public:
  AnnealingStrategy(Options options, std::vector<proposers::builtin::Family> families)
      : options_(options), families_(std::move(families)), rng_(options.seed) {}

  std::string name() const override { return "annealing"; }

  bool init(search::Context&) override { return true; }

  search::Plan next(search::Context& ctx) override {
    const double t = temperature(options_, step_, ctx.rounds());
    // Configurations in flight are taken too: concurrent rounds evaluate distinct neighbours.
    std::set<std::string> taken = visited_;
    for (const auto& p : ctx.pending())
      if (p.node_payload.is_object()) taken.insert(key_of(p.node_payload));
    std::optional<json> proposal;
    if (current_) {
      const auto moves = unvisited_neighbours(*current_, taken);
      if (!moves.empty()) proposal = moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng_)];
    }
    if (!proposal) proposal = random_unvisited(taken);  // the start, or a restart from a fully explored neighbourhood
    if (!proposal) return search::Plan::stop("search space exhausted (every configuration evaluated)");
    const json& config = *proposal;
    ++step_;
    proposers::CodeRequest request;
    request.node_id = fmt::format("step{}", step_);
    request.action = {{"title", "set " + describe(config)},
                      {"description", fmt::format("Simulated annealing step {} at temperature {:.3g}: the template family and knob "
                                                  "values of the configuration {}.",
                                                  step_, t, describe(config))}};
    request.node_payload = config;
    request.parent_candidate = current_candidate_;
    if (current_candidate_) {
      const auto parent = ctx.store().candidate(current_candidate_);
      request.parent_source = parent->source;
      request.parent_payload = parent->payload;
    } else {
      request.parent_source = ctx.brief().seed_source;
    }
    request.mode = "improve";
    return search::Plan::code(std::move(request), step_);
  }

  // A round's outcome is a move from the current configuration as it is now (rounds in flight come
  // back in any order), at the temperature of the step that proposed it.
  void observe(search::Context& ctx, const search::Observation& obs) override {
    if (obs.seed) return;  // the seed is no configuration of the space
    if (!obs.node_payload.is_object()) throw Error(fmt::format("annealing: round {} has no configuration", obs.round));
    visited_.insert(key_of(obs.node_payload));
    json next_config = obs.node_payload;
    double next_cost = kInfinity;
    int64_t next_candidate = 0;
    for (const auto& c : obs.candidates) {  // with --parallel, the proposer's extra neighbours count too
      if (c.payload.contains("family")) visited_.insert(key_of(c.payload));
      const double cost = search::cost_of(c);
      if (cost < next_cost || !next_candidate) {
        next_cost = cost;
        next_candidate = c.id;
        if (c.payload.contains("family")) next_config = c.payload;
      }
    }
    const double t = temperature(options_, obs.cycle - 1, ctx.rounds());
    const double p = current_ ? acceptance_probability(current_cost_, next_cost, t) : 1.0;
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);  // drawn always: one draw per step
    const bool accept = u < p;
    if (accept) {
      current_ = json{{"family", next_config["family"]}, {"knobs", next_config["knobs"]}};
      current_cost_ = next_cost;
      current_candidate_ = std::isinf(next_cost) ? 0 : next_candidate;
    }
    (accept ? accepted_ : rejected_)++;
    ctx.notify(search::EventKind::message,
               fmt::format("annealing step {} at T={:.3g}: {} {} (p={:.2f})", obs.cycle, t, describe(next_config),
                           accept ? "accepted" : "rejected", p));
  }

  json snapshot() const override {
    std::ostringstream rng;
    rng << rng_;
    return {{"step", step_},
            {"current", current_ ? *current_ : json()},
            {"current_cost", std::isinf(current_cost_) ? json() : json(current_cost_)},
            {"current_candidate", current_candidate_},
            {"visited", visited_},
            {"accepted", accepted_},
            {"rejected", rejected_},
            {"rng", rng.str()}};
  }

  void restore(const json& s) override {
    try {
      step_ = s.at("step").get<int>();
      current_.reset();
      if (s.at("current").is_object()) current_ = s["current"];
      current_cost_ = s.at("current_cost").is_number() ? s["current_cost"].get<double>() : kInfinity;
      current_candidate_ = s.at("current_candidate").get<int64_t>();
      visited_ = s.at("visited").get<std::set<std::string>>();
      accepted_ = s.at("accepted").get<int>();
      rejected_ = s.at("rejected").get<int>();
      std::istringstream rng(s.at("rng").get<std::string>());
      rng >> rng_;
      if (!rng) throw Error("unreadable random generator state");
    } catch (const std::exception& e) {
      throw Error(std::string("malformed annealing strategy state: ") + e.what());
    }
  }

  std::string status() const override {
    return fmt::format("annealing step {}: {} accepted, {} rejected{}", step_, accepted_, rejected_,
                       current_ ? ", at " + describe(*current_) : "");
  }

 private:
  const proposers::builtin::Family* family(const std::string& name) const {
    for (const auto& f : families_)
      if (f.name == name) return &f;
    return nullptr;
  }

  // Kernel Tuner's "adjacent" neighbours: one knob to the next or previous allowed value; plus,
  // across the family dimension (categorical), every other family at its defaults.
  std::vector<json> unvisited_neighbours(const json& config, const std::set<std::string>& taken) const {
    std::vector<json> out;
    auto add = [&](const json& c) {
      if (!taken.count(key_of(c))) out.push_back(c);
    };
    const proposers::builtin::Family* f = family(config["family"]);
    if (f)
      for (const auto& knob : f->knobs) {
        const int64_t value = config["knobs"].value(knob.name, knob.default_value);
        const auto it = std::find(knob.values.begin(), knob.values.end(), value);
        if (it == knob.values.end()) continue;
        for (int dir : {-1, +1}) {
          const auto idx = (it - knob.values.begin()) + dir;
          if (idx < 0 || idx >= int64_t(knob.values.size())) continue;
          json moved = config;
          moved["knobs"][knob.name] = knob.values[size_t(idx)];
          add(moved);
        }
      }
    for (const auto& other : families_)
      if (other.name != config["family"]) add(config_of(other, other.defaults()));
    return out;
  }

  // A uniformly random configuration not taken, or nullopt when every one is.
  std::optional<json> random_unvisited(const std::set<std::string>& taken) {
    double space = 0;
    for (const auto& f : families_) {
      double n = 1;
      for (const auto& k : f.knobs) n *= double(k.values.size());
      space += n;
    }
    if (double(taken.size()) >= space) return std::nullopt;
    for (int attempt = 0; attempt < 10000; ++attempt) {
      const auto& f = families_[std::uniform_int_distribution<size_t>(0, families_.size() - 1)(rng_)];
      proposers::builtin::KnobValues knobs;
      for (const auto& k : f.knobs) knobs[k.name] = k.values[std::uniform_int_distribution<size_t>(0, k.values.size() - 1)(rng_)];
      json c = config_of(f, knobs);
      if (!taken.count(key_of(c))) return c;
    }
    return std::nullopt;  // the few unvisited configurations are too rare to sample: treat as exhausted
  }

  Options options_;
  std::vector<proposers::builtin::Family> families_;
  std::mt19937_64 rng_;
  int step_ = 0;                 // configurations proposed
  std::optional<json> current_;  // the accepted configuration
  double current_cost_ = kInfinity;
  int64_t current_candidate_ = 0;
  std::set<std::string> visited_;
  int accepted_ = 0, rejected_ = 0;
};

Options options_from(const json& config) {
  Options o;
  search::read_options("annealing", config, [&](const std::string& key, const json& v) {
    if (key == "seed") o.seed = v.get<uint64_t>();
    else if (key == "t_start") o.t_start = v.get<double>();
    else if (key == "t_end") o.t_end = v.get<double>();
    else return false;
    return true;
  });
  if (!(o.t_start > 0) || !(o.t_end > 0) || o.t_end > o.t_start)
    throw Error("strategy annealing: temperatures must satisfy 0 < t_end <= t_start");
  return o;
}

}  // namespace

KSEARCH_REGISTER_STRATEGY("annealing", annealing, [](const search::StrategyEnv& env, const json& config) {
  const Options options = options_from(config);
  return std::make_unique<AnnealingStrategy>(options, proposers::builtin_families(*env.task, env.backend->name()));
});

}  // namespace ksearch::annealing
