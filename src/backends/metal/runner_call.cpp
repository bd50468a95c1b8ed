#include "backends/metal/runner_call.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ksearch::metal {

namespace ms = metalsim;

namespace {

std::vector<CallSource> parse_sources(const nlohmann::json& list) {
  std::vector<CallSource> out;
  for (const auto& b : list) {
    const std::string from = b.at("from").get<std::string>();
    out.push_back({from == "tensor"    ? CallSource::From::tensor
                   : from == "int"     ? CallSource::From::integer
                   : from == "scratch" ? CallSource::From::scratch
                                       : CallSource::From::floating,
                   b.at("slot").get<size_t>()});
  }
  return out;
}

// metalsim names a line of the kernel's sections ("header line 7", "body line 3"); the candidate's author reads
// file lines, written as compile errors are: "line 12 (header line 7)".
std::string with_file_lines(const std::string& message, const KernelCall& kernel) {
  static const std::regex section_line(R"(\b(header|body) line (\d+))");
  std::string out;
  auto from = message.cbegin();
  for (std::sregex_iterator it(message.begin(), message.end(), section_line), end; it != end; ++it) {
    const std::smatch& m = *it;
    const int first = m[1] == "header" ? kernel.header_first_line : kernel.body_first_line;
    out.append(from, m[0].first);
    out += "line " + std::to_string(first + std::stoi(m[2]) - 1) + " (" + m.str(0) + ")";
    from = m[0].second;
  }
  return out.append(from, message.cend());
}

std::string describe(const ms::RunResult& r, const KernelCall& kernel) {
  std::string text = "metalsim found " + std::to_string(r.diagnostics.size()) + " problem" +
                     (r.diagnostics.size() == 1 ? "" : "s") + ": ";
  for (size_t i = 0; i < r.diagnostics.size() && i < 4; ++i) {
    const auto& d = r.diagnostics[i];
    text += (i ? "; " : "") + std::string(ms::diagnostic_kind_name(d.kind)) + ": " + with_file_lines(d.message, kernel);
    if (d.count > 1) text += " (" + std::to_string(d.count) + " times)";
  }
  if (r.diagnostics.size() > 4) text += "; ...";
  return text;
}

// The schedule of each call's second run, by turn: none at first (the call runs once, as metalsim's in-order
// schedule has it), then the others.
constexpr ms::Schedule kSecondSchedule[] = {ms::Schedule::in_order, ms::Schedule::reversed, ms::Schedule::atomic_lockstep};

// Where two runs' contents of an output lie further apart than two results within the task's tolerance of the
// reference can (three times its bound, measured from the larger value), or "".
std::string difference(const CallOutput& o, const std::vector<std::byte>& first, const void* second) {
  for (size_t i = 0; i < first.size() / dtype_size(o.dtype); ++i) {
    const double a = load_as_double(first.data(), i, o.dtype), b = load_as_double(second, i, o.dtype);
    if (a == b || (std::isnan(a) && std::isnan(b))) continue;
    if (std::isfinite(a) && std::isfinite(b) &&
        std::fabs(a - b) <= 3 * (o.atol + o.rtol * std::max(std::fabs(a), std::fabs(b))))
      continue;
    std::ostringstream text;
    text.precision(9);
    text << "output '" << o.name << "' element " << i << " is " << a << " under the in-order schedule and " << b;
    return text.str();
  }
  return "";
}

std::vector<std::vector<std::byte>> buffer_bytes(const std::vector<ms::Buffer>& buffers) {
  std::vector<std::vector<std::byte>> out;
  for (const auto& b : buffers) out.emplace_back(static_cast<const std::byte*>(b.data), static_cast<const std::byte*>(b.data) + b.bytes);
  return out;
}

// The bytes of the call's outputs (empty for an absent optional tensor).
std::vector<std::vector<std::byte>> output_bytes(const std::vector<CallOutput>& outputs, const runner::CallArgs& args) {
  std::vector<std::vector<std::byte>> bytes;
  for (const auto& o : outputs) {
    const auto* at = static_cast<const std::byte*>(args.ptrs.at(o.slot));
    bytes.emplace_back(at, at ? at + args.bytes.at(o.slot) : at);
  }
  return bytes;
}

}  // namespace

RunnerArtifact RunnerArtifact::parse(const nlohmann::json& artifact) {
  RunnerArtifact a;
  for (const auto& v : artifact.at("variants")) {
    Variant variant{v.at("workload").get<std::string>(), v.at("ints").get<std::vector<int64_t>>(),
                    v.at("floats").get<std::vector<double>>(), v.at("bytes").get<std::vector<size_t>>(), {}, {}};
    for (const auto& k : v.at("kernels"))
      variant.kernels.push_back({k.at("so").get<std::string>(), ms::spec_from_json(k.at("spec").get<std::string>()),
                                 parse_sources(k.at("inputs")), parse_sources(k.at("outputs")),
                                 k.at("header_first_line").get<int>(), k.at("body_first_line").get<int>()});
    for (const auto& s : v.at("scratch"))
      variant.scratch.push_back({s.at("name").get<std::string>(), *ms::parse_dtype(s.at("dtype").get<std::string>()),
                                 s.at("shape").get<std::vector<int64_t>>()});
    a.variants.push_back(std::move(variant));
  }
  for (const auto& o : artifact.at("outputs"))
    a.outputs.push_back({o.at("slot").get<size_t>(), o.at("name").get<std::string>(),
                         parse_dtype(o.at("dtype").get<std::string>()), o.at("rtol").get<double>(),
                         o.at("atol").get<double>()});
  return a;
}

const Variant& RunnerArtifact::find(const runner::CallArgs& args) const {
  for (const auto& v : variants)
    if (v.ints == args.ints && v.floats == args.floats && v.bytes == args.bytes) return v;
  throw std::runtime_error("no compiled kernel matches this call's sizes and parameters (was the task changed after the build?)");
}

void RunnerArtifact::map_libraries() const {
  for (const auto& v : variants)
    for (const auto& k : v.kernels)
      if (const std::string err = ms::preload(k.so); !err.empty())
        throw std::runtime_error("cannot load kernel library: " + err);
}

CallBuffers::CallBuffers(const Variant& variant, const runner::CallArgs& args)
    : args_(args), ints_(args.ints.size()), floats_(args.floats.size()) {
  // Scratch starts as 0xFF bytes (NaN, all ones), as metalsim's outputs do: a kernel that relies on
  // zeroed memory fails visibly.
  for (const auto& t : variant.scratch) {
    size_t elements = 1;
    for (int64_t d : t.shape) elements *= size_t(d);
    scratch_.emplace_back(elements * ms::dtype_size(t.dtype), std::byte{0xFF});
  }
}

ms::Buffer CallBuffers::buffer(const ms::TensorSpec& t, const CallSource& s) {
  ms::Buffer b{t.name, t.dtype, t.shape, nullptr, 0};
  switch (s.from) {
    case CallSource::From::tensor:
      b.data = args_.ptrs.at(s.slot);
      b.bytes = args_.bytes.at(s.slot);
      break;
    case CallSource::From::scratch:
      b.data = scratch_.at(s.slot).data();
      b.bytes = scratch_.at(s.slot).size();
      break;
    case CallSource::From::integer: {
      Scalar& scalar = ints_.at(s.slot);
      if (t.dtype == ms::Dtype::bool_) scalar.b = args_.ints.at(s.slot) != 0;
      else scalar.i = int32_t(args_.ints.at(s.slot));
      b.data = &scalar;
      b.bytes = ms::dtype_size(t.dtype);
      break;
    }
    case CallSource::From::floating:
      floats_.at(s.slot).f = float(args_.floats.at(s.slot));
      b.data = &floats_.at(s.slot);
      b.bytes = sizeof(float);
      break;
  }
  return b;
}

std::vector<ms::Buffer> CallBuffers::inputs(const KernelCall& kernel) {
  std::vector<ms::Buffer> out;
  for (size_t i = 0; i < kernel.spec.inputs.size(); ++i) out.push_back(buffer(kernel.spec.inputs[i], kernel.inputs.at(i)));
  return out;
}

std::vector<ms::Buffer> CallBuffers::outputs(const KernelCall& kernel) {
  std::vector<ms::Buffer> out;
  for (size_t i = 0; i < kernel.spec.outputs.size(); ++i) out.push_back(buffer(kernel.spec.outputs[i], kernel.outputs.at(i)));
  return out;
}

ScheduledCalls::ScheduledCalls(const RunnerArtifact& artifact) : artifact_(artifact), calls_(artifact.variants.size()) {
  options_.workers = std::max(1u, std::thread::hardware_concurrency());  // every check on
}

void ScheduledCalls::run_kernels(const Variant& v, const runner::CallArgs& args, metalsim::Schedule schedule,
                                 const BeforeKernel& before_kernel) const {
  CallBuffers buffers(v, args);  // scratch afresh
  ms::RunOptions options = options_;
  options.schedule = schedule;
  for (size_t i = 0; i < v.kernels.size(); ++i) {
    const KernelCall& kernel = v.kernels[i];
    if (before_kernel) before_kernel(v, i, buffers);
    std::vector<ms::Buffer> inputs = buffers.inputs(kernel), outputs = buffers.outputs(kernel);
    const auto before = buffer_bytes(outputs);
    const ms::RunResult r = ms::run(kernel.so, kernel.spec, inputs, outputs, options);
    // Reads of inactive SIMD lanes whose values the kernel discards are right on a GPU; other undefined reads fail.
    const bool only_lane_reads = std::all_of(r.diagnostics.begin(), r.diagnostics.end(), [](const ms::Diagnostic& d) {
      return d.kind == ms::DiagnosticKind::InactiveLaneRead;
    });
    if (!r.ok && !(only_lane_reads && !ms::undefined_reads_matter(kernel.so, kernel.spec, inputs, before, r, options)))
      throw std::runtime_error((v.kernels.size() > 1 ? "kernel " + kernel.spec.name + ": " : std::string()) +
                               describe(r, kernel));
  }
}

void ScheduledCalls::call(const runner::CallArgs& args, const BeforeKernel& before_kernel) {
  const Variant& v = artifact_.find(args);
  const size_t turn = calls_[size_t(&v - artifact_.variants.data())]++;
  const ms::Schedule second = kSecondSchedule[turn % std::size(kSecondSchedule)];
  if (second == ms::Schedule::in_order) return run_kernels(v, args, ms::Schedule::in_order, before_kernel);
  // Both runs start from the outputs as the call passed them (a kernel may accumulate into them).
  const auto given = output_bytes(artifact_.outputs, args);
  run_kernels(v, args, ms::Schedule::in_order, before_kernel);
  const auto first = output_bytes(artifact_.outputs, args);
  for (size_t i = 0; i < given.size(); ++i)
    std::copy(given[i].begin(), given[i].end(), static_cast<std::byte*>(args.ptrs[artifact_.outputs[i].slot]));
  try {
    run_kernels(v, args, second, {});
  } catch (const std::exception& e) {
    throw std::runtime_error("under " + std::string(ms::schedule_description(second)) + ", after a clean run under the in-order one, " +
                             e.what() + ". So " + ms::kOrderDependence);
  }
  for (size_t i = 0; i < first.size(); ++i)
    if (const std::string where = difference(artifact_.outputs[i], first[i], args.ptrs[artifact_.outputs[i].slot]);
        !where.empty())
      throw std::runtime_error(where + " under " + std::string(ms::schedule_description(second)) +
                               ", further apart than two results within the task's tolerance can be: " + ms::kOrderDependence);
}

}  // namespace ksearch::metal
