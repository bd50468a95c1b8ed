#pragma once
// What both Metal runners share (ksearch-runner-metal: metalsim only; ksearch-runner-mlx: the MLX
// call, docs/METAL.md): the build artifact's variants (one kernel sequence per workload), finding the
// variant of a call, the call's buffers in each kernel's order, and running them through metalsim.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.hpp"
#include "metalsim/metalsim.hpp"
#include "runner/child.hpp"

namespace ksearch::metal {

// Where a kernel input or output comes from: the evaluator's call, or a scratch buffer of the call.
struct CallSource {
  enum class From { tensor, integer, floating, scratch } from;
  size_t slot;
};

// One kernel of a candidate, built for one workload.
struct KernelCall {
  std::string so;  // metalsim's build of the kernel for the host
  metalsim::KernelSpec spec;
  std::vector<CallSource> inputs, outputs;  // parallel to spec.inputs / spec.outputs
  int header_first_line = 1, body_first_line = 1;  // candidate-file lines of the header's and body's first lines
};

// The kernels (run in order) of the workloads whose calls pass these scalars and tensor sizes.
struct Variant {
  std::string workload;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<size_t> bytes;
  std::vector<KernelCall> kernels;
  std::vector<metalsim::TensorSpec> scratch;  // intermediate buffers of a multi-kernel candidate
};

// An output tensor of the call (its slot among the call's tensors), and the task's tolerance for its dtype: what two
// correct results may differ by, twice over.
struct CallOutput {
  size_t slot;
  std::string name;
  DType dtype;
  double rtol, atol;
};

struct RunnerArtifact {
  std::vector<Variant> variants;
  std::vector<CallOutput> outputs;

  static RunnerArtifact parse(const nlohmann::json& artifact);
  // The evaluator sends no workload name: the call's scalars and tensor sizes identify it.
  const Variant& find(const runner::CallArgs& args) const;
  // Loads every kernel's library and its line tables (metalsim::preload). Done while loading: afterwards the sandbox
  // refuses to open files.
  void map_libraries() const;
};

// One call's buffers: the call's tensors, its axes and params as 0-d arrays (whose values live here),
// and its scratch buffers. Buffers point into it, so it is neither copied nor moved.
class CallBuffers {
 public:
  CallBuffers(const Variant& variant, const runner::CallArgs& args);
  CallBuffers(const CallBuffers&) = delete;
  CallBuffers& operator=(const CallBuffers&) = delete;

  std::vector<metalsim::Buffer> inputs(const KernelCall& kernel);
  std::vector<metalsim::Buffer> outputs(const KernelCall& kernel);

 private:
  union Scalar {
    int32_t i;
    float f;
    uint8_t b;
  };
  metalsim::Buffer buffer(const metalsim::TensorSpec& t, const CallSource& source);

  const runner::CallArgs& args_;
  std::vector<Scalar> ints_, floats_;  // by slot
  std::vector<std::vector<std::byte>> scratch_;
};

// Called before each kernel of a call's first run (the MLX runner checks MLX's call of the kernel there).
using BeforeKernel = std::function<void(const Variant&, size_t kernel, CallBuffers&)>;

// Runs the calls of an artifact's kernels with every metalsim check on. A GPU runs threads in no fixed order, so the
// calls of each workload take turns: the first runs under metalsim's in-order schedule, the next ones under it and
// then under the reversed and the atomic-lockstep schedule in turn, and a call fails when the second run finds a
// problem or outputs further apart than two correct results can be (docs/METAL.md, "Schedules"); the outputs the
// call returns are the second run's. Throws with metalsim's findings.
class ScheduledCalls {
 public:
  // Made while loading: the CPU count (metalsim's workers) comes from /sys, which cannot be opened after loading.
  explicit ScheduledCalls(const RunnerArtifact& artifact);
  void call(const runner::CallArgs& args, const BeforeKernel& before_kernel = {});

 private:
  // The variant's kernels under `schedule`, each after `before_kernel` where given.
  void run_kernels(const Variant& v, const runner::CallArgs& args, metalsim::Schedule schedule,
                   const BeforeKernel& before_kernel) const;

  const RunnerArtifact& artifact_;
  metalsim::RunOptions options_;
  std::vector<size_t> calls_;  // calls so far, per variant
};

}  // namespace ksearch::metal
