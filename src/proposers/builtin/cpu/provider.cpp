// The cpu TemplateProvider: families per built-in task (one file per task), rendered to one C++
// translation unit whose knobs are compile-time constants.
#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "proposers/builtin/cpu/common.hpp"

namespace ksearch::builtin::cpu {
namespace {

const TaskTemplates* templates_for(const Task& task) {
  for (const TaskTemplates* t : {&softmax_templates(), &rmsnorm_templates(), &matmul_templates(), &attention_templates(),
                                 &selective_scan_templates()}) {
    if (t->task != task.name) continue;
    // A user task that reuses a built-in name with another signature is not what the templates implement.
    auto it = task.entries.find("cpu");
    if (it == task.entries.end() || it->second.args != t->args) return nullptr;
    return t;
  }
  return nullptr;
}

class CpuTemplates : public TemplateProvider {
 public:
  std::string backend() const override { return "cpu"; }

  std::vector<Family> families(const Task& task) const override {
    const TaskTemplates* t = templates_for(task);
    return t ? t->families : std::vector<Family>{};
  }

  std::string render(const Task& task, const std::string& family, const KnobValues& knobs) const override {
    const TaskTemplates* t = templates_for(task);
    if (!t) throw Error(fmt::format("no cpu template families for task '{}'", task.name));
    auto f = std::find_if(t->families.begin(), t->families.end(), [&](const Family& x) { return x.name == family; });
    if (f == t->families.end()) throw Error(fmt::format("task '{}' has no cpu template family '{}'", task.name, family));
    KnobValues values = f->defaults();
    for (const auto& [name, value] : knobs) {
      auto k = std::find_if(f->knobs.begin(), f->knobs.end(), [&](const Knob& x) { return x.name == name; });
      if (k == f->knobs.end()) throw Error(fmt::format("family '{}' of task '{}' has no knob '{}'", family, task.name, name));
      if (std::find(k->values.begin(), k->values.end(), value) == k->values.end())
        throw Error(fmt::format("knob '{}' of family '{}' does not allow {} (allowed: {})", name, family, value,
                                fmt::join(k->values, ", ")));
      values[name] = value;
    }
    std::string knob_list;
    for (const auto& [name, value] : values) knob_list += fmt::format(" {}={}", name, value);
    return fmt::format(
        "// {}: {} (ksearch built-in cpu template '{}')\n// knobs:{}\n"
        "#include <algorithm>\n#include <bit>\n#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <vector>\n\n"
        "{}{}\n{}",
        task.name, f->title, family, knob_list, knob_constants(values), vector_prelude(), t->render(family, values));
  }
};

KSEARCH_REGISTER_TEMPLATES(CpuTemplates);

}  // namespace
}  // namespace ksearch::builtin::cpu
