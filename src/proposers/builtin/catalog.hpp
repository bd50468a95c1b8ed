#pragma once
// The built-in expert proposer's knowledge: for each (task, backend), template families a
// performance engineer would write, each with tuning knobs. A family renders to candidate source
// for one choice of knob values; the planner turns family switches and knob changes into
// world-model actions. Backends contribute families by registering a TemplateProvider.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch::builtin {

struct Knob {
  std::string name;
  std::string description;
  std::vector<int64_t> values;  // allowed values, in a sensible order
  int64_t default_value = 0;
};

using KnobValues = std::map<std::string, int64_t>;

struct Family {
  std::string name;         // e.g. "online_vectorized"
  std::string title;        // one line: what the family does
  std::string description;  // a paragraph: the optimization idea, for world-model nodes and reports
  int difficulty = 2;       // 1..5
  double expected_gain = 2.0;  // vs the naive seed, a prior for the planner
  std::vector<Knob> knobs;
  KnobValues defaults() const;
};

class TemplateProvider {
 public:
  virtual ~TemplateProvider() = default;
  virtual std::string backend() const = 0;
  // Families for a task (by task name); empty if this provider does not know the task.
  virtual std::vector<Family> families(const Task& task) const = 0;
  // Candidate source for a family and knob values (missing knobs take defaults). Throws Error on unknown family.
  virtual std::string render(const Task& task, const std::string& family, const KnobValues& knobs) const = 0;
};

bool register_provider(std::shared_ptr<TemplateProvider> provider);
// The provider for a backend, or nullptr.
std::shared_ptr<TemplateProvider> provider_for(const std::string& backend);
// Families of a task on a backend (empty when no built-in knowledge exists).
std::vector<Family> families_for(const Task& task, const std::string& backend);

#define KSEARCH_REGISTER_TEMPLATES(CLASS) \
  static const bool ksearch_templates_##CLASS = ::ksearch::builtin::register_provider(std::make_shared<CLASS>())

}  // namespace ksearch::builtin
