// ksearch-runner-mlx: runs Metal candidates the way they ship, through MLX's C++ API
// (mlx::core::fast::metal_kernel, arrays, eval, synchronize; docs/METAL.md).
//
// Every call builds the MLX kernel call a user's code would make: the kernel function from the
// candidate's name, input and output names, body and header (built once per variant, as MLX
// advises), then a call with the task's tensors as arrays, the axes and params as 0-d arrays, the
// output shapes and dtypes, grid, threadgroup, template arguments and init_value.
//  * With Metal (macOS, KSEARCH_MLX_METAL): MLX compiles and dispatches it on the GPU; timed
//    repetitions are timed with the evaluator's protocol (prepare stages the inputs in MLX arrays and
//    evicts the GPU's caches, timed_call evals and synchronizes, collect copies the outputs back).
//  * Without Metal (Linux, MLX's CPU wheel): MLX refuses to run custom kernels, so the call is
//    recorded in an export trace instead (what MLX does to export a kernel without Metal), the
//    kernel MLX generated (name, source with its signature, grid, threadgroup, init_value) is checked
//    to be the very kernel metalsim runs, and metalsim runs it with every check on. No timing.
#include <mlx/export.h>
#include <mlx/fast.h>
#include <mlx/fast_primitives.h>
#include <mlx/mlx.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "backends/metal/runner_call.hpp"

namespace {

namespace mx = mlx::core;
namespace ms = ksearch::metalsim;
namespace metal = ksearch::metal;

mx::Dtype mlx_dtype(ms::Dtype d) {
  switch (d) {
    case ms::Dtype::float32: return mx::float32;
    case ms::Dtype::float16: return mx::float16;
    case ms::Dtype::bfloat16: return mx::bfloat16;
    case ms::Dtype::int32: return mx::int32;
    case ms::Dtype::uint32: return mx::uint32;
    case ms::Dtype::int64: return mx::int64;
    case ms::Dtype::uint64: return mx::uint64;
    case ms::Dtype::int16: return mx::int16;
    case ms::Dtype::uint16: return mx::uint16;
    case ms::Dtype::int8: return mx::int8;
    case ms::Dtype::uint8: return mx::uint8;
    case ms::Dtype::bool_: return mx::bool_;
  }
  throw std::logic_error("unknown metalsim dtype");
}

mx::Shape mlx_shape(const std::vector<int64_t>& shape) { return mx::Shape(shape.begin(), shape.end()); }

std::tuple<int, int, int> dims(const std::array<int, 3>& d) { return {d[0], d[1], d[2]}; }

// A call's buffer as an MLX array over the same memory (no copy; the memory outlives the call).
mx::array wrap(const ms::Buffer& b) {
  return mx::array(b.data, mlx_shape(b.shape), mlx_dtype(b.dtype), [](void*) {});
}

std::vector<mx::array> wrap_all(const std::vector<ms::Buffer>& buffers) {
  std::vector<mx::array> arrays;
  for (const auto& b : buffers) arrays.push_back(wrap(b));
  return arrays;
}

// The kernel function a user would build with mx.fast.metal_kernel for this candidate.
mx::fast::CustomKernelFunction make_kernel(const ms::KernelSpec& spec) {
  std::vector<std::string> input_names, output_names;
  for (const auto& t : spec.inputs) input_names.push_back(t.name);
  for (const auto& t : spec.outputs) output_names.push_back(t.name);
  return mx::fast::metal_kernel(spec.name, input_names, output_names, spec.source, spec.header,
                                spec.ensure_row_contiguous, spec.atomic_outputs);
}

// The kernel call a user would make for this workload.
std::vector<mx::array> call_kernel(const mx::fast::CustomKernelFunction& kernel, const ms::KernelSpec& spec,
                                   const std::vector<mx::array>& inputs) {
  std::vector<mx::Shape> shapes;
  std::vector<mx::Dtype> dtypes;
  for (const auto& t : spec.outputs) {
    shapes.push_back(mlx_shape(t.shape));
    dtypes.push_back(mlx_dtype(t.dtype));
  }
  std::vector<std::pair<std::string, mx::fast::TemplateArg>> templates;
  for (const auto& t : spec.template_args) {
    switch (t.kind) {
      case ms::TemplateArg::Kind::Int: templates.emplace_back(t.name, t.int_value); break;
      case ms::TemplateArg::Kind::Bool: templates.emplace_back(t.name, t.bool_value); break;
      case ms::TemplateArg::Kind::Type: templates.emplace_back(t.name, mlx_dtype(t.type_value)); break;
    }
  }
  return kernel(inputs, shapes, dtypes, dims(spec.grid), dims(spec.threadgroup), templates, spec.init_value, false, {});
}

#ifdef KSEARCH_MLX_METAL

// Bytes written on the GPU before each timed repetition: more than twice the largest system-level
// cache of an Apple GPU (M-series Ultra: 96 MiB), so no tensor of the previous repetition is cached.
constexpr int kFlushFloats = (256 << 20) / 4;

// A buffer of a call, as (where it comes from, slot): kernels of a sequence pass arrays on by it.
using SourceKey = std::pair<int, size_t>;
SourceKey key(const metal::CallSource& s) { return {int(s.from), s.slot}; }

class MlxDevice : public ksearch::runner::RunnerDevice {
 public:
  bool strict_sandbox() const override { return false; }  // the Metal driver maps its own memory

  void load(const nlohmann::json& artifact) override {
    if (!mx::metal::is_available()) throw std::runtime_error("MLX reports no Metal device on this machine");
    artifact_ = metal::RunnerArtifact::parse(artifact);
    for (const auto& v : artifact_.variants) {
      kernels_.emplace_back();
      for (const auto& k : v.kernels) kernels_.back().push_back(make_kernel(k.spec));
    }
    flush_ = mx::zeros(mx::Shape{kFlushFloats}, mx::float32);
    mx::eval(flush_);
  }

  void call(const ksearch::runner::CallArgs& args) override {
    stage(args);
    run_staged();
    collect(args);
  }

  // Inputs copied into MLX's (GPU) memory, then the caches evicted by rewriting the flush buffer.
  void prepare(const ksearch::runner::CallArgs& args) override {
    RunnerDevice::prepare(args);
    stage(args);
    flush_ = flush_ + 1.0f;
    mx::eval(flush_);
    mx::synchronize();
  }

  double timed_call(const ksearch::runner::CallArgs&, bool null_call) override {
    const double start = ksearch::runner::now_ms();
    if (!null_call) run_staged();
    mx::synchronize();
    return ksearch::runner::now_ms() - start;
  }

  void collect(const ksearch::runner::CallArgs& args) override {
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const size_t slot = output_slots_[i];
      if (outputs_[i].nbytes() != args.bytes.at(slot)) throw std::runtime_error("an output has an unexpected size");
      std::memcpy(args.ptrs.at(slot), outputs_[i].data<void>(), outputs_[i].nbytes());
    }
  }

 private:
  // The call's own tensors and scalars that the kernels read, as MLX arrays; what a kernel writes
  // is passed on to later kernels by run_staged.
  void stage(const ksearch::runner::CallArgs& args) {
    const metal::Variant& v = artifact_.find(args);
    staged_variant_ = &v;
    staged_kernels_ = &kernels_[size_t(&v - artifact_.variants.data())];
    metal::CallBuffers buffers(v, args);
    staged_inputs_.clear();
    std::set<SourceKey> written;
    for (const auto& k : v.kernels) {
      const std::vector<ms::Buffer> inputs = buffers.inputs(k);
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!written.count(key(k.inputs[i])) && !staged_inputs_.count(key(k.inputs[i])))
          staged_inputs_.emplace(key(k.inputs[i]), mx::copy(wrap(inputs[i])));
      for (const auto& o : k.outputs) written.insert(key(o));
    }
    for (auto& [source, array] : staged_inputs_) mx::eval(array);
  }

  void run_staged() {
    std::map<SourceKey, mx::array> arrays = staged_inputs_;
    outputs_.clear();
    output_slots_.clear();
    for (size_t i = 0; i < staged_variant_->kernels.size(); ++i) {
      const metal::KernelCall& k = staged_variant_->kernels[i];
      std::vector<mx::array> inputs;
      for (const auto& s : k.inputs) inputs.push_back(arrays.at(key(s)));
      const std::vector<mx::array> outputs = call_kernel((*staged_kernels_)[i], k.spec, inputs);
      for (size_t j = 0; j < outputs.size(); ++j) {
        arrays.insert_or_assign(key(k.outputs[j]), outputs[j]);
        if (k.outputs[j].from == metal::CallSource::From::tensor) {
          outputs_.push_back(outputs[j]);
          output_slots_.push_back(k.outputs[j].slot);
        }
      }
    }
    mx::eval(outputs_);
  }

  metal::RunnerArtifact artifact_;
  std::vector<std::vector<mx::fast::CustomKernelFunction>> kernels_;  // parallel to artifact_.variants
  const metal::Variant* staged_variant_ = nullptr;
  const std::vector<mx::fast::CustomKernelFunction>* staged_kernels_ = nullptr;
  std::map<SourceKey, mx::array> staged_inputs_;
  std::vector<mx::array> outputs_;  // the task outputs the kernels wrote
  std::vector<size_t> output_slots_;  // their slots in the call
  mx::array flush_ = mx::array(0.0f);
};

#else  // no Metal: MLX builds the call, metalsim runs it

// The first line where two texts differ, for a readable mismatch message.
std::string first_difference(const std::string& mlx, const std::string& metalsim) {
  std::istringstream a(mlx), b(metalsim);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = bool(std::getline(a, la)), more_b = bool(std::getline(b, lb));
    if (!more_a && !more_b) return "no difference";
    if (la != lb || more_a != more_b)
      return "line " + std::to_string(line) + ": MLX `" + (more_a ? la : "<end>") + "`, metalsim `" +
             (more_b ? lb : "<end>") + "`";
  }
}

// MLX's call recorded as an export trace records it (MLX refuses to run it without Metal).
std::vector<mx::array> record_call(const mx::fast::CustomKernelFunction& kernel, const ms::KernelSpec& spec,
                                   const std::vector<mx::array>& inputs) {
  std::vector<mx::array> outputs;
  mx::export_function([](const mx::ExportCallbackInput&) {},
                      [&](const mx::Args& args) { return outputs = call_kernel(kernel, spec, args); }, inputs);
  return outputs;
}

// Throws unless the kernel MLX generated for the call is the kernel metalsim runs.
void check_same_kernel(const mx::array& output, const ms::KernelSpec& spec, const std::string& workload) {
  if (std::string(output.primitive().name()) != "CustomKernel")
    throw std::runtime_error("MLX recorded a " + std::string(output.primitive().name()) + ", not a custom kernel");
  const auto [name, source, grid, threadgroup, shape_infos, row_contiguous, init_value, scalars, precompiled,
              shared_memory, compile_options] = static_cast<mx::fast::CustomKernel&>(output.primitive()).state();
  std::string mismatch;
  if (name != ms::kernel_name(spec)) mismatch = "kernel name " + name + " vs " + ms::kernel_name(spec);
  else if (const std::string ours = ms::generate_source(spec); source != ours)
    mismatch = "source, " + first_difference(source, ours);
  else if (grid != dims(spec.grid) || threadgroup != dims(spec.threadgroup)) mismatch = "grid or threadgroup";
  else if (init_value != spec.init_value) mismatch = "init_value";
  if (!mismatch.empty())
    throw std::runtime_error("MLX's call of kernel " + spec.name + " for workload " + workload + " differs from metalsim's: " + mismatch);
}

class MlxDevice : public ksearch::runner::RunnerDevice {
 public:
  // MLX starts its scheduler and reads the machine's properties on first use: do that before the
  // sandbox closes, with a call of the kind every candidate makes.
  std::vector<std::filesystem::path> initialize() override {
    ms::KernelSpec probe;
    probe.name = "probe";
    probe.inputs = {{"n", ms::Dtype::int32, {}}};
    probe.outputs = {{"out", ms::Dtype::float32, {1}}};
    probe.source = "out[0] = n;";
    record_call(make_kernel(probe), probe, {mx::array(1)});
    return {};
  }

  void load(const nlohmann::json& artifact) override {
    artifact_ = metal::RunnerArtifact::parse(artifact);
    artifact_.map_libraries();
    for (const auto& v : artifact_.variants) {
      kernels_.emplace_back();
      for (const auto& k : v.kernels) kernels_.back().push_back(make_kernel(k.spec));
    }
    calls_.emplace(artifact_);
    std::fprintf(stderr,
                 "metal backend: MLX %s without Metal builds each kernel call; metalsim runs it on the CPU: "
                 "correctness only, no timing on this host\n",
                 mx::version());
  }

  void call(const ksearch::runner::CallArgs& args) override {
    // Each kernel of a sequence is one MLX call, checked and run in order: later kernels read what
    // earlier ones wrote.
    calls_->call(args, [&](const metal::Variant& v, size_t i, metal::CallBuffers& buffers) {
      const metal::KernelCall& k = v.kernels[i];
      const auto& kernel = kernels_[size_t(&v - artifact_.variants.data())][i];
      check_same_kernel(record_call(kernel, k.spec, wrap_all(buffers.inputs(k))).at(0), k.spec, v.workload);
    });
  }

  double timed_call(const ksearch::runner::CallArgs&, bool) override {
    throw std::runtime_error("the metal backend has no timing on this host: MLX has no Metal device here");
  }

 private:
  metal::RunnerArtifact artifact_;
  std::vector<std::vector<mx::fast::CustomKernelFunction>> kernels_;  // parallel to artifact_.variants
  std::optional<metal::ScheduledCalls> calls_;
};

#endif

}  // namespace

int main(int argc, char** argv) {
  MlxDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
