#pragma once
// The built-in expert proposer (default; no network). Its knowledge is the template catalog
// (proposers/builtin/catalog.hpp): world-model actions are family switches (one node per family
// under the root) and knob changes (children of an evaluated node: one or two knobs moved to a
// neighbouring value, the knobs with the biggest observed or expected effect first). Code for an
// action is the provider's render(task, family, knobs). It keeps no state of its own: everything
// it needs is in the requests (the world model carries family + knobs in node payloads), so runs
// resume exactly.
//
// Tasks without template families can still be searched when their seed declares knobs:
//   constexpr int64_t TILE = 64;  // ksearch:knob TILE = 64 in [16, 32, 64, 128]
// declares knob TILE (default 64, allowed values listed); rendering rewrites `TILE = <v>` in the
// code part of that line only.
#include <memory>
#include <string>
#include <vector>

#include "proposers/builtin/catalog.hpp"
#include "proposers/proposer.hpp"

namespace ksearch::proposers {

std::unique_ptr<Proposer> make_builtin_proposer(const ProposerEnv& env, const nlohmann::json& config);

// The knob space the built-in proposer searches (also the annealing strategy's): the task's
// template families on the backend, else one family kSeedKnobsFamily from the seed's declared
// knobs. Throws Error (clear message) when there is neither.
inline constexpr const char* kSeedKnobsFamily = "seed_knobs";
std::vector<builtin::Family> builtin_families(const tasks::Task& task, const std::string& backend);

// Knobs declared by `// ksearch:knob` comments in a seed; throws Error on a malformed declaration.
std::vector<builtin::Knob> parse_seed_knobs(const std::string& seed);
std::string render_seed_knobs(const std::string& seed, const builtin::KnobValues& values);

}  // namespace ksearch::proposers
