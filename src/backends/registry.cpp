#include <map>

#include "backends/backend.hpp"
#include "core/error.hpp"

namespace ksearch {

namespace {
std::map<std::string, BackendFactory>& factories() {
  static std::map<std::string, BackendFactory> map;
  return map;
}
}  // namespace

bool register_backend(const std::string& name, BackendFactory factory) {
  factories()[name] = std::move(factory);
  return true;
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  auto it = factories().find(name);
  if (it == factories().end()) {
    std::string known;
    for (const auto& [n, _] : factories()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown backend '" + name + "' (known: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& [n, _] : factories()) names.push_back(n);
  return names;
}

}  // namespace ksearch
