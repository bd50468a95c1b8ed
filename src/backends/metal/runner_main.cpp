// ksearch-runner-metal: runs metalsim-compiled Metal candidates for the evaluator, with metalsim's
// checks on. Any diagnostic (out-of-bounds access, data race, barrier divergence, ...) fails the
// call, so the evaluator reports runtime_error with metalsim's message (thread, buffer).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "metalsim/metalsim.hpp"
#include "runner/child.hpp"

namespace {

namespace ms = ksearch::metalsim;

struct Source {
  enum class From { tensor, integer, floating } from;
  size_t slot;
};

struct Variant {
  std::string workload;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<size_t> bytes;
  std::string so;
  ms::KernelSpec spec;
};

std::vector<Source> parse_sources(const nlohmann::json& list) {
  std::vector<Source> out;
  for (const auto& b : list) {
    const std::string from = b.at("from").get<std::string>();
    out.push_back({from == "tensor" ? Source::From::tensor : from == "int" ? Source::From::integer : Source::From::floating,
                   b.at("slot").get<size_t>()});
  }
  return out;
}

// Scalars are 0-d arrays: their values are stored here for the duration of a call.
union Scalar {
  int32_t i;
  float f;
  uint8_t b;
};

class MetalDevice : public ksearch::runner::RunnerDevice {
 public:
  void load(const nlohmann::json& artifact) override {
    inputs_ = parse_sources(artifact.at("inputs"));
    outputs_ = parse_sources(artifact.at("outputs"));
    for (const auto& v : artifact.at("variants")) {
      Variant variant{v.at("workload").get<std::string>(), v.at("ints").get<std::vector<int64_t>>(),
                      v.at("floats").get<std::vector<double>>(), v.at("bytes").get<std::vector<size_t>>(),
                      v.at("so").get<std::string>(), ms::spec_from_json(v.at("spec").get<std::string>())};
      // Load every kernel now: after loading, the sandbox refuses to open files, and metalsim's own
      // dlopen of the same path then finds the library already mapped.
      if (!dlopen(variant.so.c_str(), RTLD_NOW | RTLD_LOCAL))
        throw std::runtime_error(std::string("cannot load kernel library: ") + dlerror());
      variants_.push_back(std::move(variant));
    }
    // Read now: the CPU count comes from /sys, which cannot be opened after loading.
    options_.workers = std::max(1u, std::thread::hardware_concurrency());
    std::fprintf(stderr, "metal backend: kernels emulated on the CPU by metalsim; correctness only, no timing on this host\n");
  }

  void call(const ksearch::runner::CallArgs& args) override {
    const Variant& v = find_variant(args);
    std::vector<Scalar> scalars(v.spec.inputs.size());
    auto buffer = [&](const ms::TensorSpec& t, const Source& s, Scalar* scalar) {
      ms::Buffer b{t.name, t.dtype, t.shape, nullptr, 0};
      switch (s.from) {
        case Source::From::tensor:
          b.data = args.ptrs.at(s.slot);
          b.bytes = args.bytes.at(s.slot);
          break;
        case Source::From::integer:
          if (t.dtype == ms::Dtype::bool_) scalar->b = args.ints.at(s.slot) != 0;
          else scalar->i = int32_t(args.ints.at(s.slot));
          b.data = scalar;
          b.bytes = ms::dtype_size(t.dtype);
          break;
        case Source::From::floating:
          scalar->f = float(args.floats.at(s.slot));
          b.data = scalar;
          b.bytes = sizeof(float);
          break;
      }
      return b;
    };
    std::vector<ms::Buffer> in, out;
    for (size_t i = 0; i < v.spec.inputs.size(); ++i) in.push_back(buffer(v.spec.inputs[i], inputs_.at(i), &scalars[i]));
    for (size_t i = 0; i < v.spec.outputs.size(); ++i) out.push_back(buffer(v.spec.outputs[i], outputs_.at(i), nullptr));
    const ms::RunResult r = ms::run(v.so, v.spec, in, out, options_);
    if (!r.ok) throw std::runtime_error(describe(r));
  }

  double timed_call(const ksearch::runner::CallArgs&, bool) override {
    throw std::runtime_error("the metal backend has no timing on this host: metalsim emulates the GPU on the CPU");
  }

 private:
  // The evaluator sends no workload name: the call's scalars and tensor sizes identify it.
  const Variant& find_variant(const ksearch::runner::CallArgs& args) const {
    for (const auto& v : variants_)
      if (v.ints == args.ints && v.floats == args.floats && v.bytes == args.bytes) return v;
    throw std::runtime_error("no compiled kernel matches this call's sizes and parameters (was the task changed after the build?)");
  }

  static std::string describe(const ms::RunResult& r) {
    std::string text = "metalsim found " + std::to_string(r.diagnostics.size()) + " problem" +
                       (r.diagnostics.size() == 1 ? "" : "s") + ": ";
    for (size_t i = 0; i < r.diagnostics.size() && i < 4; ++i) {
      const auto& d = r.diagnostics[i];
      text += (i ? "; " : "") + std::string(ms::diagnostic_kind_name(d.kind)) + ": " + d.message;
      if (d.count > 1) text += " (" + std::to_string(d.count) + " times)";
    }
    if (r.diagnostics.size() > 4) text += "; ...";
    return text;
  }

  std::vector<Source> inputs_, outputs_;
  std::vector<Variant> variants_;
  ms::RunOptions options_;  // every check on
};

}  // namespace

int main(int argc, char** argv) {
  MetalDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
