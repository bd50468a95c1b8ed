#include <map>

#include "core/error.hpp"
#include "proposers/builtin_proposer.hpp"
#include "proposers/proposer.hpp"

namespace ksearch::proposers {

namespace {
std::map<std::string, ProposerFactory>& factories() {
  // Seeded here rather than self-registered: in a static library an object file nothing refers to
  // is not linked. Proposers in other files register with KSEARCH_REGISTER_PROPOSER and must be
  // referenced from the executable (or listed here).
  static std::map<std::string, ProposerFactory> map{{"builtin", make_builtin_proposer}};
  return map;
}
}  // namespace

bool register_proposer(const std::string& name, ProposerFactory factory) {
  factories()[name] = std::move(factory);
  return true;
}

std::vector<std::string> proposer_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<Proposer> make_proposer(const ProposerSpec& spec, const ProposerEnv& env) {
  auto it = factories().find(spec.name);
  if (it == factories().end()) {
    std::string known;
    for (const auto& n : proposer_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown proposer '" + spec.name + "' (known: " + known + ")");
  }
  return it->second(env, spec.config);
}

}  // namespace ksearch::proposers
