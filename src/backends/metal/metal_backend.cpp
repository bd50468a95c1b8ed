// The metal backend: candidates are MLX custom-kernel bodies (docs/METAL.md). metalsim compiles each
// kernel for the host CPU. Where ksearch-runner-mlx was built (MLX's C++ library found), it runs every
// call through MLX: on a Mac with Metal on the GPU, timed; elsewhere MLX builds the call and metalsim
// runs it with Metal semantics and its checks on (bounds, races, barriers), for correctness only, as
// ksearch-runner-metal does without MLX.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>

#include <optional>

#include "backends/backend.hpp"
#include "backends/metal/candidate.hpp"
#include "backends/metal/mlx_export.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "metalsim/metalsim.hpp"
#include "tasks/signature.hpp"

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::backends::Ceilings;
using ksearch::backends::ExportBundle;
using ksearch::backends::HardwareProfile;
using ksearch::backends::comment_block;
using ksearch::backends::half_of_memory;
using ksearch::backends::load_rules;
using ksearch::tasks::CallArg;
using ksearch::tasks::CallLayout;
using ksearch::tasks::ParamSpec;
using ksearch::tasks::Task;
using ksearch::tasks::call_layout;
using ksearch::tasks::element_count;
using ksearch::tasks::scalar_arguments;

namespace fs = std::filesystem;

namespace ksearch::metal {

namespace {

const char* from_name(metal::Binding::From f) {
  switch (f) {
    case metal::Binding::From::tensor: return "tensor";
    case metal::Binding::From::integer: return "int";
    case metal::Binding::From::floating: return "float";
    case metal::Binding::From::scratch: return "scratch";
  }
  return "?";
}

// The element type MLX writes into the kernel signature.
std::string mlx_type(DType d) {
  switch (d) {
    case DType::f16: return "float16_t";
    case DType::bf16: return "bfloat16_t";
    case DType::i32: return "int32_t";
    case DType::i64: return "int64_t";
    case DType::u8: return "uint8_t";
    case DType::boolean: return "bool";
    case DType::f64: return "double (not supported by Metal)";
    case DType::f32: break;
  }
  return "float";
}

// Compiler messages as candidate-file lines, one per line ("line 12 (body line 3), column 5: error: ...").
std::string describe_messages(const metalsim::CompileResult& c, const metal::Candidate& candidate) {
  std::string text;
  for (const auto& m : c.messages) {
    if (m.severity == "warning") continue;
    std::string where;
    if (m.file == "body" || m.file == "header")
      where = fmt::format("line {} ({} line {}), column {}",
                          (m.file == "body" ? candidate.body_first_line : candidate.header_first_line) + m.line - 1,
                          m.file, m.line, m.column);
    else
      where = fmt::format("metalsim {} code line {}", m.file, m.line);
    text += fmt::format("{}: {}: {}\n", where, m.severity, m.message);
  }
  return text.empty() ? c.log : text;
}

// MLX's runner where it was built, else metalsim's.
fs::path metal_runner() {
  const fs::path mlx = runner_dir().path / "ksearch-runner-mlx";
  return fs::exists(mlx) ? mlx : runner_dir().path / "ksearch-runner-metal";
}

// Whether candidates run on an Apple GPU here (MLX's runner on macOS), so that timings mean something.
bool on_apple_gpu() {
#ifdef __APPLE__
  return metal_runner().filename() == "ksearch-runner-mlx";
#else
  return false;
#endif
}

class MetalBackend : public Backend {
 public:
  std::string name() const override { return "metal"; }
  std::string source_extension() const override { return ".metal"; }
  std::string code_language() const override { return "metal"; }

  bool available(std::string* why) const override {
    if (on_path("clang++")) return true;
    if (why) *why = "clang++ not found on PATH (metalsim compiles Metal kernels for the host with it)";
    return false;
  }

  bool timing_available() const override { return on_apple_gpu(); }
  // Emulation runs every thread on the host with checks on: a realistic scan takes minutes here, and most calls run
  // the kernels twice, under two schedules (runner_call.hpp), each run within metalsim's 240 s limit.
  std::chrono::milliseconds call_timeout() const override { return std::chrono::minutes(10); }

  const HardwareProfile& profile() override {
    if (!profile_) {
      HardwareProfile p;
      p.name = on_apple_gpu() ? "metal: Apple GPU through MLX custom kernels"
                              : "metal: Apple GPU through MLX custom kernels (emulated by metalsim on this host: correctness only)";
      p.rules = load_rules(profiles_dir() / "metal.rules.toml");
      // {host}: how candidates run here (on a Mac's GPU, or emulated by metalsim); {rules}: the rule set.
      const std::string host = read_file(profiles_dir() / (on_apple_gpu() ? "metal.host-apple.md" : "metal.host-metalsim.md"));
      p.prose = substitute(read_file(profiles_dir() / "metal.md"), {{"host", host}, {"rules", p.rules.describe()}});
      profile_ = std::move(p);
    }
    return *profile_;
  }

  // The kernel body with its launch directives; the header says how to call mx.fast.metal_kernel.
  ExportBundle export_bundle(const Task& task, const std::string& source, std::string verification,
                             const std::string& format) const override {
    if (format == "mlx" || format == "mlx-lm") {
      // A Python module on mx.fast.metal_kernel (and for mlx-lm a drop-in for its Mamba prefill).
      const auto kind = format == "mlx-lm" ? metal::MlxExport::mlx_lm : metal::MlxExport::module;
      const metal::MlxExportFile file = metal::mlx_export(task, source, comment_block(verification, "#"), kind);
      ExportBundle b;
      b.files.push_back({file.name, file.contents});
      b.note = kind == metal::MlxExport::mlx_lm
                   ? "Python module: import it and call patch(model) on an mlx-lm Mamba model (on Linux after metalsim_mlx.patch())"
                   : "Python module: import it and call " + task.entry("metal").function +
                         "(...) with mx arrays (on Linux after metalsim_mlx.patch())";
      return b;
    }
    if (!format.empty() && format != "source")
      throw Error("unknown export format '" + format + "' for the metal backend (it offers: source, mlx, mlx-lm)");
    const std::string file = task.name + ".metal";
    const CallLayout layout = call_layout(task, "metal");
    std::string inputs, outputs, flags;
    for (const auto& a : layout.args) {
      std::string& list = a.is_output ? outputs : inputs;
      list += (list.empty() ? "\"" : ", \"") + a.name + "\"";
      if (a.kind == CallArg::Kind::tensor && a.tensor->optional) flags += (flags.empty() ? "" : ", ") + ("has_" + a.name);
    }
    verification += fmt::format(
        "\nLaunch with MLX (mx.fast.metal_kernel):\n"
        "  kernel = mx.fast.metal_kernel(name=\"{}\", input_names=[{}], output_names=[{}],\n"
        "                                header=<the lines before the body marker>, source=<the lines after it>)\n"
        "  (without a body marker line, everything below the leading comments is the source).\n"
        "Sizes and parameters are passed as 0-d arrays (int32, float32 or bool), tensors as contiguous arrays.\n"
        "Launch geometry: the grid and threadgroup directive lines below, expressions over the sizes, in threads as MLX counts them.\n"
        "Template arguments: the template directive line below, if any{}.\n",
        task.entry("metal").function, inputs, outputs, flags.empty() ? "" : "; plus bool " + flags + " (optional tensor present)");
    ExportBundle b;
    b.files.push_back({file, comment_block(verification) + "\n" + source});
    b.note = "MLX kernel body with its launch directives; the header comment says how to call mx.fast.metal_kernel";
    return b;
  }

  std::optional<std::string> task_unsupported(const Task& task) const override {
    // Each argument is a name in the kernel's signature, where one that Metal reserves (a built-in type as `half`, an
    // address space) does not compile.
    static const std::set<std::string> reserved = {"half", "bfloat", "device", "constant", "thread", "threadgroup",
                                                   "threadgroup_imageblock", "kernel", "vertex", "fragment", "sampler",
                                                   "texture", "visible", "stage_in", "ray_data", "object_data"};
    for (const auto& a : call_layout(task, "metal").args) {
      if (a.kind == CallArg::Kind::tensor && a.tensor->dtype == DType::f64)
        return fmt::format("tensor '{}' is f64, which Metal has no type for (MSL has no double): declare it f32", a.name);
      if (reserved.count(a.name))
        return fmt::format("'{}' names a kernel argument, but Metal reserves the word (a type or keyword of MSL): rename it "
                           "in the task",
                           a.name);
    }
    return std::nullopt;
  }

  std::string entry_description(const Task& task) const override {
    const CallLayout layout = call_layout(task, "metal");
    std::string inputs, outputs, flags;
    for (const auto& a : layout.args) {
      if (a.kind == CallArg::Kind::tensor) {
        std::string shape;
        for (const auto& d : a.tensor->shape) shape += (shape.empty() ? "" : ", ") + d;
        const std::string type = mlx_type(a.tensor->dtype);
        (a.is_output ? outputs : inputs) +=
            fmt::format("//   {}{} {}  // ({}){}\n", a.is_output ? "device " : "const device ", type + "*", a.name, shape,
                        a.tensor->optional ? ", optional" : "");
        if (a.tensor->optional) flags += "has_" + a.name + " ";
      } else {
        const ParamSpec* p = task.find_param(a.name);
        const char* type = a.kind == CallArg::Kind::floating ? "float"
                           : p && p->dtype == DType::boolean ? "bool" : "int";
        inputs += fmt::format("//   const constant {}& {}  // {} (0-d array)\n", type, a.name, p ? "param" : "axis");
      }
    }
    std::string text = fmt::format(
        "// An MLX kernel body for mx.fast.metal_kernel(name=\"{}\"); MLX writes the signature:\n"
        "// inputs, in this order:\n{}// outputs (row-contiguous):\n{}",
        task.name, inputs, outputs);
    if (!flags.empty())
      text += "// template bools, set per call: " + flags +
              "(an absent optional tensor is a zero-size array: never touch it when its flag is false)\n";
    text +=
        "// The file starts with directives (expressions over the task's axes and params):\n"
        "//   // grid: X, Y, Z            (threads, as MLX's grid)\n"
        "//   // threadgroup: X, Y, Z\n"
        "//   // template: NAME = expr    (optional, int/bool/dtype; repeatable)\n"
        "// then optional helper code (MLX's header), a line '// --- body ---', then the kernel body.\n";
    text += on_apple_gpu() ? "// Run and timed on this Mac's GPU through MLX (metalsim's checks for out-of-bounds accesses,\n"
                             "// races and barrier divergence run where there is no Apple GPU)."
                           : "// Emulated by metalsim on this host: correctness only (out-of-bounds accesses, races and\n"
                             "// barrier divergence fail the candidate); no timing.";
    return text;
  }

  BuildResult build(const Task& task, const std::string& source) override {
    const auto start = std::chrono::steady_clock::now();
    BuildResult result;
    auto finish = [&]() {
      result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return result;
    };
    metal::Program program;
    try {
      program = metal::parse_program(source);
    } catch (const Error& e) {
      result.log = fmt::format("error: {}\n", e.what());
      return finish();
    }
    const CallLayout layout = call_layout(task, "metal");
    metalsim::CompileOptions options;
    options.cache_dir = cache_subdir("metalsim");
    nlohmann::json variants = nlohmann::json::array();
    std::set<std::string> readable;
    std::set<fs::path> checked_libraries;
    auto bindings = [](const std::vector<metal::Binding>& list) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& b : list) j.push_back({{"from", from_name(b.from)}, {"slot", b.slot}});
      return j;
    };
    result.cached = true;
    // One kernel sequence per workload: template values (has_<name>, the candidate's own) and scratch
    // sizes may differ between workloads, and the runner cannot compile (its sandbox forbids writes).
    // metalsim's cache makes workloads that share a kernel share one .so.
    for (const auto& w : task.workloads) {
      if (!w.runs_on("metal")) continue;
      metal::WorkloadProgram built;
      try {
        built = metal::program_for_workload(task, program, w);
      } catch (const Error& e) {
        result.log = fmt::format("error: {}\n", e.what());
        return finish();
      }
      nlohmann::json kernels = nlohmann::json::array();
      for (size_t i = 0; i < built.kernels.size(); ++i) {
        const metal::WorkloadKernel& k = built.kernels[i];
        const metalsim::CompileResult c = metalsim::compile(k.spec, options);
        if (!c.ok) {
          result.log = (program.multi_kernel() ? "kernel " + program.kernels[i].name + ":\n" : std::string()) +
                       describe_messages(c, program.kernels[i]);
          return finish();
        }
        // The [object] rules on what the compiler made of the kernel (imports, load-time code), once per library.
        if (checked_libraries.insert(c.so_path).second)
          if (const auto violations = profile().rules.object.check(c.so_path); !violations.empty()) {
            result.log = "error: " + violations.front().message + "\n";
            return finish();
          }
        result.cached = result.cached && c.cached;
        readable.insert(c.so_path.string());
        kernels.push_back({{"so", c.so_path.string()},
                           {"spec", metalsim::spec_to_json(k.spec)},
                           {"inputs", bindings(k.inputs)},
                           {"outputs", bindings(k.outputs)},
                           {"header_first_line", program.kernels[i].header_first_line},
                           {"body_first_line", program.kernels[i].body_first_line}});
      }
      nlohmann::json scratch = nlohmann::json::array();
      for (const auto& t : built.scratch)
        scratch.push_back({{"name", t.name}, {"dtype", std::string(metalsim::dtype_name(t.dtype))}, {"shape", t.shape}});
      std::vector<int64_t> ints;
      std::vector<double> floats;
      scalar_arguments(task, layout, w, ints, floats);
      std::vector<size_t> bytes;
      for (const auto& a : layout.args)
        if (a.kind == CallArg::Kind::tensor) {
          const auto shape = task.shape_of(*a.tensor, w);
          bytes.push_back(shape ? element_count(*shape) * dtype_size(a.tensor->dtype) : 0);
        }
      for (const auto& other : variants)
        if (other["ints"] == nlohmann::json(ints) && other["floats"] == nlohmann::json(floats) &&
            other["bytes"] == nlohmann::json(bytes) && (other["kernels"] != kernels || other["scratch"] != scratch)) {
          result.log = fmt::format("error: workloads {} and {} pass identical arguments but need different kernels; "
                                   "the runner could not tell them apart",
                                   other["workload"].get<std::string>(), w.name);
          return finish();
        }
      variants.push_back({{"workload", w.name},
                          {"ints", ints},
                          {"floats", floats},
                          {"bytes", bytes},
                          {"kernels", kernels},
                          {"scratch", scratch}});
    }
    // The call's outputs and their tolerances: the runner compares a call's runs under two schedules with them.
    nlohmann::json outputs = nlohmann::json::array();
    size_t slot = 0;
    for (const auto& a : layout.args) {
      if (a.kind != CallArg::Kind::tensor) continue;
      if (a.is_output) {
        const tasks::Tolerance tolerance = task.tolerance(a.tensor->dtype);
        outputs.push_back({{"slot", slot},
                           {"name", a.name},
                           {"dtype", std::string(dtype_name(a.tensor->dtype))},
                           {"rtol", tolerance.rtol},
                           {"atol", tolerance.atol}});
      }
      ++slot;
    }
    // No "library" key: the runner must not snapshot and restore the .so's data, which holds
    // metalsim's runtime hooks (Metal kernels cannot keep state in program-scope variables anyway).
    result.artifact = {{"variants", variants},
                       {"outputs", outputs},
                       {"readable", std::vector<std::string>(readable.begin(), readable.end())}};
    result.ok = true;
    return finish();
  }

  fs::path runner_executable() const override { return metal_runner(); }

  runner::RunnerLimits runner_limits() const override {
    runner::RunnerLimits limits;
    limits.memory_bytes = half_of_memory(uint64_t(16) << 30);
    // One runner checks every workload on the CPU; emulation is far slower than the GPU.
    limits.cpu_seconds = 3600;
    return limits;
  }

  // No roofline: no Apple GPU here, and on a Mac no ceiling has been measured yet.
  Ceilings ceilings() override {
    return {0, 0, on_apple_gpu() ? "none: Apple GPU ceilings not measured" : "none: no Apple GPU on this host (metalsim checks correctness only)"};
  }

 private:
  std::optional<HardwareProfile> profile_;
};

KSEARCH_REGISTER_BACKEND("metal", MetalBackend);

}  // namespace
}  // namespace ksearch::metal
