#pragma once
// core/options: reading a plugin's options (a strategy's, an executor's) from its JSON config.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Every key of `config` (a JSON object, or null for none) must be one `read` knows: it returns false
// for an unknown key, so that a misspelt option is an error, not ignored. Throws Error naming `owner`
// (e.g. "strategy annealing") on an unknown key or a value of the wrong type.
void read_options(const std::string& owner, const nlohmann::json& config,
                  const std::function<bool(const std::string& key, const nlohmann::json& value)>& read);

}  // namespace ksearch
