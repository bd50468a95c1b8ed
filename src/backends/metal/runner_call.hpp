#pragma once
// What both Metal runners share (ksearch-runner-metal: metalsim only; ksearch-runner-mlx: the MLX
// call, docs/METAL.md): the build artifact's variants (one kernel sequence per workload), finding the
// variant of a call, the call's buffers in each kernel's order, and running them through metalsim.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

struct RunnerArtifact {
  std::vector<Variant> variants;

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

// Runs the kernel with every metalsim check on; throws with metalsim's findings (naming the kernel
// when `name_kernel`, for multi-kernel candidates).
void run_checked(const KernelCall& kernel, CallBuffers& buffers, const metalsim::RunOptions& options, bool name_kernel);

}  // namespace ksearch::metal
