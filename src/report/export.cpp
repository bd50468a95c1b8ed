#include <fmt/format.h>

#include <ctime>

#include "core/error.hpp"
#include "report/report.hpp"
#include "tasks/signature.hpp"
#include "tasks/task.hpp"

#ifdef KSEARCH_HAVE_CUDA_EXPORT
#include "backends/cuda/cuda_tools.hpp"
#endif
#ifdef KSEARCH_HAVE_MLX_EXPORT
#include "backends/metal/mlx_export.hpp"
#endif

using nlohmann::json;

namespace ksearch::report {

namespace {

std::string date_text(double unix_seconds) {
  const std::time_t t = std::time_t(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M %Z", &tm);
  return buf;
}

// Every line prefixed with "// ", so the header is a comment in C++, CUDA and Metal files alike
// (and only prose to the Metal directive parser, whose keys are lowercase words followed by ':');
// "#" for Python.
std::string comment_block(const std::string& text, const std::string& marker = "//") {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.empty() ? marker + "\n" : marker + " " + line + "\n";
    start = end + 1;
  }
  return out;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string tensor_line(const CallArg& a) {
  std::string shape;
  for (const auto& d : a.tensor->shape) shape += (shape.empty() ? "" : ", ") + d;
  return fmt::format("  {:<8} {}[{}] {}{}{}", a.name, dtype_name(a.tensor->dtype), shape, a.is_output ? "output" : "input",
                     a.tensor->optional ? ", optional (may be null)" : "",
                     a.tensor->description.empty() ? "" : ": " + a.tensor->description);
}

// Workload names with their verdicts, e.g. "small (passed), large (passed)".
std::string workload_verdicts(const json& report) {
  std::string out;
  if (!report.is_object()) return out;
  for (const auto& w : report.value("workloads", json::array()))
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", w.value("name", ""), w.value("status", ""));
  return out;
}

std::string verification_text(const RunData& run, const Task& task, const store::Candidate& best, const std::string& backend) {
  const auto& s = run.summary;
  std::string t = fmt::format("{}: {}\n", task.name, first_line(task.description));
  t += fmt::format("Exported by ksearch on {} from run {}, candidate c{} (round {}, node {}, proposer {}).\n", date_text(double(std::time(nullptr))),
                   run.dir.string(), best.id, best.round, best.node_id, best.proposer);
  if (run.world_model)
    if (const world_model::Node* n = run.world_model->find(best.node_id); n && n->action) t += "Optimization: " + n->action->title + "\n";
  t += "\nEntry point (backend " + backend + "):\n  " + entry_prototype(task, backend) + "\n";
  const CallLayout layout = call_layout(task, backend);
  for (const auto& a : layout.args)
    if (a.kind == CallArg::Kind::tensor) t += tensor_line(a) + "\n";
  for (const auto& [name, description] : task.axes) t += fmt::format("  {:<8} size{}\n", name, description.empty() ? "" : ": " + description);
  for (const auto& p : task.params)
    t += fmt::format("  {:<8} {} parameter, default {:g}{}\n", p.name, dtype_name(p.dtype), p.default_value,
                     p.description.empty() ? "" : ": " + p.description);

  t += fmt::format("\nVerified by ksearch on {} against the task's reference (fresh random inputs per trial):\n", date_text(best.evaluated_at));
  t += "  visible workloads: " + workload_verdicts(best.report) + "\n";
  if (run.best_held_out.is_object())
    t += fmt::format("  held-out workloads: {} ({}){}\n", s.held_out_passed.value_or(false) ? "passed" : "FAILED",
                     workload_verdicts(run.best_held_out),
                     s.held_out_speedup > 0 ? fmt::format(", {:.2f}x vs seed", s.held_out_speedup) : "");
  else if (task.workloads_for(backend, true).empty())
    t += "  held-out workloads: none for this backend\n";
  else
    t += "  held-out workloads: not checked (the run has not reached its final verdict)\n";
  if (best.speedup_vs_seed > 0)
    t += fmt::format("  speedup vs the task's seed: {:.2f}x (geometric mean over the visible workloads); median {:.4g} ms; "
                     "roofline {:.1f}%\n",
                     best.speedup_vs_seed, best.median_ms, 100 * best.roofline_fraction);
  else
    t += "  not timed (this backend checks correctness only)\n";
  if (!run.info.task_hash.empty() && task.content_hash != run.info.task_hash)
    t += "  WARNING: the task file changed since the run; this verification is for the earlier version.\n";
  return t;
}

ExportBundle export_cpu(const RunData& run, const Task& task, const store::Candidate& best) {
  const std::string file = task.name + ".cpp";
  std::string text = verification_text(run, task, best, "cpu");
  text += fmt::format(
      "\nBuild as a shared library (the flags ksearch measured it with):\n"
      "  g++ -std=c++20 -O3 -march=native -fopenmp -fPIC -shared {0} -o lib{1}.so\n"
      "or compile into your program (g++ -std=c++20 -O3 -march=native -fopenmp -c {0}) and declare\n"
      "  {2};\n"
      "All work is finished when the function returns; pointers are host memory, contiguous, row-major.\n",
      file, task.name, entry_prototype(task, "cpu"));
  ExportBundle b;
  b.files.push_back({file, comment_block(text) + "\n" + best.source});
  b.note = fmt::format("build: g++ -std=c++20 -O3 -march=native -fopenmp -fPIC -shared {} -o lib{}.so", file, task.name);
  return b;
}

ExportBundle export_cuda(const RunData& run, const Task& task, const store::Candidate& best) {
  std::string text = verification_text(run, task, best, "cuda");
  ExportBundle b;
#ifdef KSEARCH_HAVE_CUDA_EXPORT
  // The cuda backend writes the bundle (kernel, PyTorch extension, setup.py, README); the
  // verification record goes on top of its kernel file.
  for (auto& [name, contents] : cuda::cuda_export_bundle(task, best.source)) b.files.push_back({name, contents});
  if (b.files.empty()) throw Error("the cuda backend produced no export files");
  b.files.front().contents = comment_block(text) + "\n" + b.files.front().contents;
  b.note = "see README.md beside the kernel for the nvcc and PyTorch build commands";
#else
  const std::string file = task.name + ".cu";
  text += fmt::format(
      "\nC ABI: the entry point above takes device pointers and launches every kernel on `stream`.\n"
      "Build: nvcc -O3 -arch=native -Xcompiler -fPIC -shared {} -o lib{}.so\n",
      file, task.name);
  b.files.push_back({file, comment_block(text) + "\n#include <cuda_runtime.h>\n#include <stdint.h>\n\n" + best.source});
  b.note = "this ksearch was built without the cuda backend; the PyTorch wrapper is produced by the cuda backend when it is built";
#endif
  return b;
}

ExportBundle export_metal(const RunData& run, const Task& task, const store::Candidate& best) {
  const std::string file = task.name + ".metal";
  std::string text = verification_text(run, task, best, "metal");
  const CallLayout layout = call_layout(task, "metal");
  std::string inputs, outputs, flags;
  for (const auto& a : layout.args) {
    std::string& list = a.is_output ? outputs : inputs;
    list += (list.empty() ? "\"" : ", \"") + a.name + "\"";
    if (a.kind == CallArg::Kind::tensor && a.tensor->optional) flags += (flags.empty() ? "" : ", ") + ("has_" + a.name);
  }
  text += fmt::format(
      "\nLaunch with MLX (mx.fast.metal_kernel):\n"
      "  kernel = mx.fast.metal_kernel(name=\"{}\", input_names=[{}], output_names=[{}],\n"
      "                                header=<the lines before the body marker>, source=<the lines after it>)\n"
      "  (without a body marker line, everything below the leading comments is the source).\n"
      "Sizes and parameters are passed as 0-d arrays (int32, float32 or bool), tensors as contiguous arrays.\n"
      "Launch geometry: the grid and threadgroup directive lines below, expressions over the sizes, in threads as MLX counts them.\n"
      "Template arguments: the template directive line below, if any{}.\n",
      task.entry("metal").function, inputs, outputs, flags.empty() ? "" : "; plus bool " + flags + " (optional tensor present)");
  ExportBundle b;
  b.files.push_back({file, comment_block(text) + "\n" + best.source});
  b.note = "MLX kernel body with its launch directives; the header comment says how to call mx.fast.metal_kernel";
  return b;
}

// A Python module on mx.fast.metal_kernel (and for mlx-lm a drop-in for its Mamba prefill).
ExportBundle export_mlx(const RunData& run, const Task& task, const store::Candidate& best, const std::string& format) {
#ifdef KSEARCH_HAVE_MLX_EXPORT
  const auto kind = format == "mlx-lm" ? metal::MlxExport::mlx_lm : metal::MlxExport::module;
  const metal::MlxExportFile file = metal::mlx_export(task, best.source, comment_block(verification_text(run, task, best, "metal"), "#"), kind);
  ExportBundle b;
  b.files.push_back({file.name, file.contents});
  b.note = kind == metal::MlxExport::mlx_lm
               ? "Python module: import it and call patch(model) on an mlx-lm Mamba model (on Linux after metalsim_mlx.patch())"
               : "Python module: import it and call " + task.entry("metal").function +
                     "(...) with mx arrays (on Linux after metalsim_mlx.patch())";
  return b;
#else
  (void)run, (void)task, (void)best;
  throw Error("--format " + format + " needs the metal backend, which this ksearch was built without");
#endif
}

}  // namespace

ExportBundle export_bundle(const RunData& run, const std::string& format) {
  const store::Candidate* best = run.best();
  if (!best) {
    const auto& s = run.summary;
    if (s.held_out_passed == false)
      throw NothingToExport("no candidate of the run in " + run.dir.string() + " passed the held-out workloads; nothing to export");
    throw NothingToExport("the run in " + run.dir.string() + " has no passing candidate yet; nothing to export");
  }
  if (run.info.task_file.empty() || !std::filesystem::exists(run.info.task_file))
    throw Error("the run's task file " + run.info.task_file + " is missing; it is needed for the entry signature");
  const Task task = load_task(run.info.task_file);
  const std::string& backend = run.info.backend;
  if (format == "mlx" || format == "mlx-lm") {
    if (backend != "metal") throw Error("--format " + format + " exports metal kernels; this run's backend is " + backend);
    return export_mlx(run, task, *best, format);
  }
  if (!format.empty() && format != "source") throw Error("unknown export format '" + format + "' (source, mlx, mlx-lm)");
  if (backend == "cpu") return export_cpu(run, task, *best);
  if (backend == "cuda") return export_cuda(run, task, *best);
  if (backend == "metal") return export_metal(run, task, *best);
  throw Error("ksearch export does not know the backend '" + backend + "'");
}

}  // namespace ksearch::report
