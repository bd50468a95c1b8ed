#include "core/options.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/json_text.hpp"

namespace ksearch {

void read_options(const std::string& owner, const nlohmann::json& config,
                  const std::function<bool(const std::string&, const nlohmann::json&)>& read) {
  if (config.is_null()) return;  // no options
  if (!config.is_object()) throw Error(fmt::format("{}: options must be a JSON object", owner));
  for (const auto& [key, value] : config.items()) {
    bool known = false;
    try {
      known = read(key, value);
    } catch (const nlohmann::json::exception&) {
      throw Error(fmt::format("{}: option {} has a value of the wrong type: {}", owner, key, json_text(value)));
    }
    if (!known) throw Error(fmt::format("{}: unknown option '{}'", owner, key));
  }
}

}  // namespace ksearch
