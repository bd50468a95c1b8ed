#include "search/strategy.hpp"

#include <fmt/format.h>

#include <map>

#include "core/error.hpp"

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
  if (config.is_null()) return;  // no options
  if (!config.is_object()) throw Error(fmt::format("strategy {}: options must be a JSON object", strategy));
  for (const auto& [key, value] : config.items()) {
    bool known = false;
    try {
      known = read(key, value);
    } catch (const nlohmann::json::exception&) {
      throw Error(fmt::format("strategy {}: option {} has a value of the wrong type: {}", strategy, key, value.dump()));
    }
    if (!known) throw Error(fmt::format("strategy {}: unknown option '{}'", strategy, key));
  }
}

}  // namespace ksearch::search
