#include "executors/executor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "core/error.hpp"

namespace ksearch::executors {

namespace {
std::map<std::string, ExecutorFactory>& factories() {
  static std::map<std::string, ExecutorFactory> map;
  return map;
}
}  // namespace

ExecutorSpec ExecutorSpec::from_json(const nlohmann::json& j) {
  ExecutorSpec spec;
  if (!j.is_object()) return spec;
  spec.name = j.value("name", spec.name);
  spec.config = j.value("config", nlohmann::json::object());
  return spec;
}

bool register_executor(const std::string& name, ExecutorFactory factory) {
  factories()[name] = std::move(factory);
  return true;
}

std::vector<std::string> executor_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<Executor> make_executor(const ExecutorSpec& spec, const ExecutorEnv& env) {
  auto it = factories().find(spec.name);
  if (it == factories().end())
    throw Error(fmt::format("unknown executor '{}' (known: {})", spec.name, fmt::join(executor_names(), ", ")));
  return it->second(env, spec.config);
}

}  // namespace ksearch::executors
