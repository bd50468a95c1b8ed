#include "proposers/builtin/catalog.hpp"

#include <mutex>

namespace ksearch::builtin {

namespace {
std::map<std::string, std::shared_ptr<TemplateProvider>>& providers() {
  static std::map<std::string, std::shared_ptr<TemplateProvider>> map;
  return map;
}
}  // namespace

KnobValues Family::defaults() const {
  KnobValues values;
  for (const auto& k : knobs) values[k.name] = k.default_value;
  return values;
}

bool register_provider(std::shared_ptr<TemplateProvider> provider) {
  providers()[provider->backend()] = std::move(provider);
  return true;
}

std::shared_ptr<TemplateProvider> provider_for(const std::string& backend) {
  auto it = providers().find(backend);
  return it == providers().end() ? nullptr : it->second;
}

std::vector<Family> families_for(const Task& task, const std::string& backend) {
  auto provider = provider_for(backend);
  return provider ? provider->families(task) : std::vector<Family>{};
}

}  // namespace ksearch::builtin
