#pragma once
// What both Metal runners share (ksearch-runner-metal: metalsim only; ksearch-runner-mlx: the MLX
// call, docs/METAL.md): the build artifact's variants (one kernel per workload), finding the variant
// of a call, the call's buffers in the kernel's order, and running them through metalsim.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metalsim/metalsim.hpp"
#include "runner/child.hpp"

namespace ksearch::metal {

// The kernel of the workloads whose calls pass these scalars and tensor sizes.
struct Variant {
  std::string workload;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<size_t> bytes;
  std::string so;  // metalsim's build of the kernel for the host
  metalsim::KernelSpec spec;
};

// Where each kernel input and output comes from in the evaluator's call.
struct CallSource {
  enum class From { tensor, integer, floating } from;
  size_t slot;
};

struct RunnerArtifact {
  std::vector<Variant> variants;
  std::vector<CallSource> inputs, outputs;  // parallel to each spec's inputs / outputs

  static RunnerArtifact parse(const nlohmann::json& artifact);
  // The evaluator sends no workload name: the call's scalars and tensor sizes identify it.
  const Variant& find(const runner::CallArgs& args) const;
  // dlopen every variant's library. Done while loading: afterwards the sandbox refuses to open files,
  // and metalsim's own dlopen of the same path then finds the library already mapped.
  void map_libraries() const;
};

// One call's buffers in the kernel's order. Axes and params are 0-d arrays whose values live in
// `scalars` (so a CallBuffers must not be copied, only moved).
struct CallBuffers {
  union Scalar {
    int32_t i;
    float f;
    uint8_t b;
  };
  std::vector<metalsim::Buffer> inputs, outputs;
  std::vector<Scalar> scalars;
};
CallBuffers call_buffers(const RunnerArtifact& artifact, const Variant& variant, const runner::CallArgs& args);

// Runs the variant's kernel with every metalsim check on; throws with metalsim's findings.
void run_checked(const Variant& variant, CallBuffers& buffers, const metalsim::RunOptions& options);

}  // namespace ksearch::metal
