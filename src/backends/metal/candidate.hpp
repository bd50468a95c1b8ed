#pragma once
// A Metal candidate file (docs/METAL.md): leading `// key: value` directives (launch geometry and
// MLX call options, as expressions over the task's axes and params and the int templates declared
// before them; a trailing `// comment` is ignored), then the MLX `header`, a
// `// --- body ---` line, then the MLX kernel `source` (body). Without the marker line everything
// after the directives is the body.
// A multi-kernel candidate declares scratch buffers (`// scratch: NAME = DTYPE[shape, ...]`) and then
// has one such section per kernel, each after a `// --- kernel: NAME ---` line and naming the buffers
// it writes (`// outputs: a, b`); the kernels run in file order, each an MLX kernel call.
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

// One kernel of a candidate.
struct Candidate {
  std::string name;                  // the section's kernel name; empty in a single-kernel file
  std::vector<std::string> outputs;  // buffers it writes (task outputs and scratch); multi-kernel only
  int name_line = 0, outputs_line = 0;
  std::vector<std::string> grid, threadgroup;  // 3 expressions each
  int grid_line = 0, threadgroup_line = 0;
  std::vector<TemplateDirective> templates;
  std::optional<std::string> init_value;
  int init_value_line = 0;
  bool atomic_outputs = false;
  std::string header, body;
  int header_first_line = 1, body_first_line = 1;  // file lines of their first lines
};

// An intermediate buffer of a multi-kernel candidate: written by one kernel, read by later ones.
struct ScratchBuffer {
  std::string name;
  metalsim::Dtype dtype = metalsim::Dtype::float32;
  std::vector<std::string> shape;  // expressions, like the launch directives
  int line = 0;
};

struct Program {
  std::vector<ScratchBuffer> scratch;
  std::vector<Candidate> kernels;  // one for a single-kernel file
  bool multi_kernel() const { return !kernels.front().name.empty(); }
};

// Throws Error("line N: ...") for malformed or missing directives.
Program parse_program(const std::string& source);
// A single-kernel file; throws Error for a multi-kernel one.
Candidate parse_candidate(const std::string& source);

// Where each MLX kernel argument comes from in the evaluator's call (call_layout(task, "metal")).
struct Binding {
  enum class From { tensor, integer, floating, scratch } from = From::tensor;
  int slot = 0;  // scratch: the index in Program::scratch
};

// The MLX kernel for one workload: task tensors named in [entry.metal] args become inputs/outputs in
// that order, axes and params become 0-d inputs (int32, float32 or bool), each optional tensor adds
// a template bool has_<name> (absent tensors are zero-size arrays), then the candidate's templates.
struct WorkloadKernel {
  metalsim::KernelSpec spec;
  std::vector<Binding> inputs, outputs;  // parallel to spec.inputs / spec.outputs
};

// A program's kernels for one workload, in order. A kernel's inputs are the task's inputs, axes and
// params, then the buffers earlier kernels wrote (in the order they were written); its outputs are
// the buffers its `outputs` directive names (all task outputs in a single-kernel file).
struct WorkloadProgram {
  std::vector<WorkloadKernel> kernels;
  std::vector<metalsim::TensorSpec> scratch;  // parallel to Program::scratch, shapes evaluated
};

// Throws Error naming the directive's line when an expression does not evaluate or the kernels'
// outputs do not write every task output exactly once, each scratch buffer before it is read.
WorkloadProgram program_for_workload(const tasks::Task& task, const Program& program, const tasks::Workload& workload);

}  // namespace ksearch::metal
