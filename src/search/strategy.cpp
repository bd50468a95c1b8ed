#include "search/strategy.hpp"

#include <fmt/format.h>

#include <map>

#include "core/error.hpp"
#include "core/options.hpp"

namespace ksearch::search {

namespace {
std::map<std::string, StrategyFactory>& factories() {
  static std::map<std::string, StrategyFactory> map;
  return map;
}
}  // namespace

bool register_strategy(const std::string& name, StrategyFactory factory) {
  factories()[name] = std::move(factory);
  return true;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const StrategySpec& spec, const StrategyEnv& env) {
  auto it = factories().find(spec.name);
  if (it == factories().end())
    throw Error(fmt::format("unknown strategy '{}' (known: {})", spec.name, fmt::join(strategy_names(), ", ")));
  return it->second(env, spec.config);
}

void read_options(const std::string& strategy, const nlohmann::json& config,
                  const std::function<bool(const std::string&, const nlohmann::json&)>& read) {
  ksearch::read_options("strategy " + strategy, config, read);
}

}  // namespace ksearch::search
