#pragma once
// The built-in expert proposer's knowledge: template families a performance engineer would write,
// kept as files in templates/<backend>/<task>/ (a source file compilable as it is, plus <family>.toml
// with its knobs, priors and the task entry it serves; see docs/TEMPLATES.md). A family renders to
// candidate source for one choice of knob values: each knob's `#define NAME default` line takes the
// value, and the family's quoted #includes (shared headers of templates/<backend>/) are inlined, so a
// candidate is one self-contained file. One TemplateProvider serves every backend.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch::proposers::builtin {

struct Knob {
  std::string name;         // as the world model and the run store see it; the source's macro is its upper case
  std::string description;
  std::vector<int64_t> values;  // allowed values, in a sensible order (moves go to neighbours)
  int64_t default_value = 0;
};

using KnobValues = std::map<std::string, int64_t>;

struct Family {
  std::string name;         // e.g. "online_fused" (the file stem)
  std::string title;        // one line: what the family does
  std::string description;  // a paragraph: the optimization idea, for world-model nodes and reports
  int difficulty = 2;       // 1..5
  double expected_gain = 2.0;  // vs the naive seed, a prior for the planner
  std::vector<Knob> knobs;
  std::filesystem::path source;  // the template file, as written (defaults in place)
  KnobValues defaults() const;
};

// The families of one backend: templates/<backend>/ (or any folder of that layout, for tests).
class TemplateProvider {
 public:
  TemplateProvider(std::string backend, std::filesystem::path dir);

  const std::string& backend() const { return backend_; }
  const std::filesystem::path& dir() const { return dir_; }
  // The task folders that hold families (names of tasks), sorted.
  std::vector<std::string> tasks() const;
  // Families whose [serves] matches the task's entry on this backend (argument list and tensor dtype);
  // empty when there are none. Throws Error naming the file and field of a malformed family.
  std::vector<Family> families(const tasks::Task& task) const;
  // Candidate source for a family and knob values (missing knobs take defaults). Throws Error on an
  // unknown family, knob or value.
  std::string render(const tasks::Task& task, const std::string& family, const KnobValues& knobs) const;

 private:
  struct Served {
    Family family;
    std::vector<std::string> args;
    DType tensor_dtype;
  };
  const std::vector<Served>& load(const std::string& task) const;
  const std::map<std::string, Knob>& shared_knobs() const;

  std::string backend_;
  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::vector<Served>> loaded_;  // per task folder
  mutable std::unique_ptr<std::map<std::string, Knob>> shared_knobs_;
};

// The provider for data_path("templates")/<backend>, or nullptr when that folder does not exist.
std::shared_ptr<TemplateProvider> provider_for(const std::string& backend);
// Families of a task on a backend (empty when no built-in knowledge exists).
std::vector<Family> families_for(const tasks::Task& task, const std::string& backend);
// The family with the largest expected gain rendered at its defaults, as an example of a fast kernel
// for prompts ({{template_example}}); empty when the task has no families on the backend.
std::string template_example(const tasks::Task& task, const std::string& backend);

}  // namespace ksearch::proposers::builtin
