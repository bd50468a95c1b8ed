#pragma once
// A Metal candidate file (docs/METAL.md): leading `// key: value` directives (launch geometry and
// MLX call options, as expressions over the task's axes and params and the int templates declared
// before them; a trailing `// comment` is ignored), then the MLX `header`, a
// `// --- body ---` line, then the MLX kernel `source` (body). Without the marker line everything
// after the directives is the body.
#include <optional>
#include <string>
#include <vector>

#include "metalsim/metalsim.hpp"
#include "tasks/task.hpp"

namespace ksearch::metal {

struct TemplateDirective {
  std::string name;
  std::string value;  // expression, true/false, or an MLX dtype name
  int line = 0;
};

struct Candidate {
  std::vector<std::string> grid, threadgroup;  // 3 expressions each
  int grid_line = 0, threadgroup_line = 0;
  std::vector<TemplateDirective> templates;
  std::optional<std::string> init_value;
  int init_value_line = 0;
  bool atomic_outputs = false;
  std::string header, body;
  int header_first_line = 1, body_first_line = 1;  // file lines of their first lines
};

// Throws Error("line N: ...") for malformed or missing directives.
Candidate parse_candidate(const std::string& source);

// Where each MLX kernel argument comes from in the evaluator's call (call_layout(task, "metal")).
struct Binding {
  enum class From { tensor, integer, floating } from = From::tensor;
  int slot = 0;
};

// The MLX kernel for one workload: task tensors named in [entry.metal] args become inputs/outputs in
// that order, axes and params become 0-d inputs (int32, float32 or bool), each optional tensor adds
// a template bool has_<name> (absent tensors are zero-size arrays), then the candidate's templates.
struct WorkloadKernel {
  metalsim::KernelSpec spec;
  std::vector<Binding> inputs, outputs;  // parallel to spec.inputs / spec.outputs
};

// Throws Error naming the directive's line when an expression does not evaluate.
WorkloadKernel kernel_for_workload(const Task& task, const Candidate& candidate, const Workload& workload);

}  // namespace ksearch::metal
