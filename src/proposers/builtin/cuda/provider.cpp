// The cuda TemplateProvider: families per built-in task, rendered as the family's CUDA source
// preceded by one #define per knob.
#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "proposers/builtin/cuda/common.hpp"

namespace ksearch::builtin::cuda {
namespace {

const TaskTemplates* templates_for(const Task& task) {
  for (const TaskTemplates* t : {&softmax_templates(), &rmsnorm_templates(), &matmul_templates(),
                                 &attention_bf16_templates(), &selective_scan_templates()}) {
    if (t->task != task.name) continue;
    // A user task that reuses a built-in name with another signature is not what the templates implement.
    auto it = task.entries.find("cuda");
    if (it == task.entries.end() || it->second.args != t->args) return nullptr;
    return t;
  }
  return nullptr;
}

class CudaTemplates : public TemplateProvider {
 public:
  std::string backend() const override { return "cuda"; }

  std::vector<Family> families(const Task& task) const override {
    const TaskTemplates* t = templates_for(task);
    return t ? t->families : std::vector<Family>{};
  }

  std::string render(const Task& task, const std::string& family, const KnobValues& knobs) const override {
    const TaskTemplates* t = templates_for(task);
    if (!t) throw Error(fmt::format("no cuda template families for task '{}'", task.name));
    auto f = std::find_if(t->families.begin(), t->families.end(), [&](const Family& x) { return x.name == family; });
    if (f == t->families.end()) throw Error(fmt::format("task '{}' has no cuda template family '{}'", task.name, family));
    KnobValues values = f->defaults();
    for (const auto& [name, value] : knobs) {
      auto k = std::find_if(f->knobs.begin(), f->knobs.end(), [&](const Knob& x) { return x.name == name; });
      if (k == f->knobs.end()) throw Error(fmt::format("family '{}' has no knob '{}'", family, name));
      if (std::find(k->values.begin(), k->values.end(), value) == k->values.end())
        throw Error(fmt::format("knob '{}' of family '{}' does not allow {}", name, family, value));
      values[name] = value;
    }
    std::string out = fmt::format("// ksearch built-in template {}/{} (cuda)\n", task.name, family);
    for (const auto& [name, value] : values) out += fmt::format("#define {} {}\n", name, value);
    return out + t->sources[size_t(f - t->families.begin())];
  }
};

KSEARCH_REGISTER_TEMPLATES(CudaTemplates);

}  // namespace
}  // namespace ksearch::builtin::cuda
