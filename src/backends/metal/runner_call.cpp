#include "backends/metal/runner_call.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace ksearch::metal {

namespace ms = metalsim;

namespace {

std::vector<CallSource> parse_sources(const nlohmann::json& list) {
  std::vector<CallSource> out;
  for (const auto& b : list) {
    const std::string from = b.at("from").get<std::string>();
    out.push_back({from == "tensor"  ? CallSource::From::tensor
                   : from == "int" ? CallSource::From::integer
                                   : CallSource::From::floating,
                   b.at("slot").get<size_t>()});
  }
  return out;
}

std::string describe(const ms::RunResult& r) {
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

}  // namespace

RunnerArtifact RunnerArtifact::parse(const nlohmann::json& artifact) {
  RunnerArtifact a;
  a.inputs = parse_sources(artifact.at("inputs"));
  a.outputs = parse_sources(artifact.at("outputs"));
  for (const auto& v : artifact.at("variants"))
    a.variants.push_back({v.at("workload").get<std::string>(), v.at("ints").get<std::vector<int64_t>>(),
                          v.at("floats").get<std::vector<double>>(), v.at("bytes").get<std::vector<size_t>>(),
                          v.at("so").get<std::string>(), ms::spec_from_json(v.at("spec").get<std::string>())});
  return a;
}

const Variant& RunnerArtifact::find(const runner::CallArgs& args) const {
  for (const auto& v : variants)
    if (v.ints == args.ints && v.floats == args.floats && v.bytes == args.bytes) return v;
  throw std::runtime_error("no compiled kernel matches this call's sizes and parameters (was the task changed after the build?)");
}

void RunnerArtifact::map_libraries() const {
  for (const auto& v : variants)
    if (!dlopen(v.so.c_str(), RTLD_NOW | RTLD_LOCAL))
      throw std::runtime_error(std::string("cannot load kernel library: ") + dlerror());
}

CallBuffers call_buffers(const RunnerArtifact& artifact, const Variant& variant, const runner::CallArgs& args) {
  CallBuffers call;
  call.scalars.resize(variant.spec.inputs.size());
  auto buffer = [&](const ms::TensorSpec& t, const CallSource& s, CallBuffers::Scalar* scalar) {
    ms::Buffer b{t.name, t.dtype, t.shape, nullptr, 0};
    switch (s.from) {
      case CallSource::From::tensor:
        b.data = args.ptrs.at(s.slot);
        b.bytes = args.bytes.at(s.slot);
        break;
      case CallSource::From::integer:
        if (t.dtype == ms::Dtype::bool_) scalar->b = args.ints.at(s.slot) != 0;
        else scalar->i = int32_t(args.ints.at(s.slot));
        b.data = scalar;
        b.bytes = ms::dtype_size(t.dtype);
        break;
      case CallSource::From::floating:
        scalar->f = float(args.floats.at(s.slot));
        b.data = scalar;
        b.bytes = sizeof(float);
        break;
    }
    return b;
  };
  for (size_t i = 0; i < variant.spec.inputs.size(); ++i)
    call.inputs.push_back(buffer(variant.spec.inputs[i], artifact.inputs.at(i), &call.scalars[i]));
  for (size_t i = 0; i < variant.spec.outputs.size(); ++i)
    call.outputs.push_back(buffer(variant.spec.outputs[i], artifact.outputs.at(i), nullptr));
  return call;
}

void run_checked(const Variant& variant, CallBuffers& buffers, const metalsim::RunOptions& options) {
  const ms::RunResult r = ms::run(variant.so, variant.spec, buffers.inputs, buffers.outputs, options);
  if (!r.ok) throw std::runtime_error(describe(r));
}

}  // namespace ksearch::metal
