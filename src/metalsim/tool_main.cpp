// ksearch-metalsim: runs one MLX custom-kernel call (mx.fast.metal_kernel) with metalsim, every
// check on. The metalsim_mlx Python package (python/) drives it as a subprocess:
//
//   ksearch-metalsim run --spec SPEC.json --inputs IN.bin --outputs OUT.bin [--source]
//
// SPEC.json is metalsim's spec JSON (spec_from_json). IN.bin holds the inputs' row-contiguous
// bytes (an input with strides: the memory its view spans) back to back in spec order; OUT.bin receives the outputs the same way. stdout gets one
// JSON object: {"ok", "stage": "compile"|"run", "compile": {...}, "run": {...}[, "source"]}.
// Exit status 0 whenever that object was written (also for compile errors and diagnostics),
// 2 for bad usage or unreadable files, 3 when the host compiler is missing.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "metalsim/metalsim.hpp"

namespace {

namespace ms = ksearch::metalsim;
namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kUsageError = 2;
constexpr int kMissingCompiler = 3;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::size_t tensor_bytes(const ms::TensorSpec& t) {
  for (int64_t d : t.shape)
    if (d < 0) throw UsageError("tensor '" + t.name + "' has a negative dimension");
  return ms::memory_elements(t) * ms::dtype_size(t.dtype);
}

json position(const std::array<uint32_t, 3>& p) { return json::array({p[0], p[1], p[2]}); }

// The kernel runs in this process, and its code may print (`__builtin_printf`): the result keeps stdout for itself,
// and everything else written to it goes to stderr, so that nothing a kernel prints breaks the JSON.
std::FILE* reserve_stdout_for_result() {
  std::cout.flush();
  std::fflush(stdout);
  const int result_fd = dup(STDOUT_FILENO);
  std::FILE* result_out = result_fd < 0 ? nullptr : fdopen(result_fd, "w");
  if (!result_out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw std::runtime_error(std::string("cannot set stdout aside for the result: ") + std::strerror(errno));
  return result_out;
}

// The result, one line of JSON; a source that is not UTF-8 reaches it with U+FFFD.
void print_result(const nlohmann::json& result, std::FILE* out) {
  const std::string line = ksearch::json_text(result) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

// Reads of threadgroup memory that no thread wrote, or past a threadgroup variable (red zones): on a GPU they find
// whatever lies there, and a kernel that discards the value (`select(0.0f, partial[lane], lane < n)`) is right.
bool is_threadgroup_read(const ms::Diagnostic& d) {
  return (d.kind == ms::DiagnosticKind::UninitializedRead && d.message.starts_with("read of uninitialized")) ||
         (d.kind == ms::DiagnosticKind::OutOfBounds && d.message.starts_with("out-of-bounds read of threadgroup memory"));
}
// The findings metalsim_mlx warns about rather than raises (python/metalsim_mlx/kernel.py): those reads, and reads
// past the end of device buffers.
bool is_read_a_mac_runs(const ms::Diagnostic& d) {
  return is_threadgroup_read(d) ||
         (d.kind == ms::DiagnosticKind::OutOfBounds && d.message.starts_with("out-of-bounds read of device buffer"));
}

// Whether the values such reads found reach the outputs: the kernel runs twice more on one worker (the same order of
// threadgroups and threads each time), with threadgroup memory starting as 0xFF bytes and as 0x00 bytes, from the
// outputs' first bytes; the outputs differ where a value read reached them.
bool threadgroup_reads_reach_outputs(const fs::path& so, const ms::KernelSpec& spec, std::vector<ms::Buffer>& inputs,
                                     const std::vector<std::vector<unsigned char>>& first_outputs) {
  std::vector<std::vector<unsigned char>> results;
  for (const unsigned char fill : {0xFF, 0x00}) {
    std::vector<std::vector<unsigned char>> storage = first_outputs;
    std::vector<ms::Buffer> outputs;
    for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
      const auto& t = spec.outputs[i];
      outputs.push_back({t.name, t.dtype, t.shape, storage[i].data(), storage[i].size()});
    }
    ms::RunOptions options;
    options.workers = 1;
    options.threadgroup_fill = fill;
    ms::run(so, spec, inputs, outputs, options);
    for (auto& bytes : storage) results.push_back(std::move(bytes));
  }
  const std::size_t half = results.size() / 2;
  return !std::equal(results.begin(), results.begin() + half, results.begin() + half);
}

int run_command(const fs::path& spec_path, const fs::path& inputs_path, const fs::path& outputs_path, bool with_source) {
  std::FILE* const result_out = reserve_stdout_for_result();
  const ms::KernelSpec spec = ms::spec_from_json(ksearch::read_file(spec_path));
  json result = {{"ok", false}, {"stage", "compile"}};
  if (with_source) result["source"] = ms::generate_source(spec);

  const ms::CompileOptions compile_options;
  if (!ksearch::on_path(compile_options.compiler)) {
    std::cerr << "ksearch-metalsim: " << compile_options.compiler
              << " not found on PATH; metalsim compiles every kernel for the host with it (Debian/Ubuntu: apt-get "
                 "install clang)\n";
    return kMissingCompiler;
  }
  const ms::CompileResult compiled = ms::compile(spec, compile_options);
  json messages = json::array();
  for (const auto& m : compiled.messages)
    messages.push_back({{"file", m.file}, {"line", m.line}, {"column", m.column}, {"severity", m.severity}, {"message", m.message}});
  result["compile"] = {{"ok", compiled.ok}, {"cached", compiled.cached}, {"seconds", compiled.seconds},
                       {"messages", messages}, {"log", compiled.log}};
  if (!compiled.ok) {
    print_result(result, result_out);
    return 0;
  }

  // One allocation per tensor keeps every buffer 16-byte aligned, as Metal buffers are.
  std::ifstream in(inputs_path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + inputs_path.string());
  std::vector<std::vector<unsigned char>> storage;
  std::vector<ms::Buffer> inputs, outputs;
  for (const auto& t : spec.inputs) {
    auto& bytes = storage.emplace_back(tensor_bytes(t));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
      throw UsageError(inputs_path.string() + " is shorter than the inputs of the spec");
    inputs.push_back({t.name, t.dtype, t.shape, bytes.data(), bytes.size()});
  }
  if (in.peek() != std::char_traits<char>::eof())
    throw UsageError(inputs_path.string() + " is longer than the inputs of the spec");
  // MLX leaves outputs uninitialized without init_value; 0xFF bytes (NaN, all ones) make a
  // kernel that relies on zeroed outputs visibly wrong instead of accidentally right.
  std::vector<std::vector<unsigned char>> first_outputs;
  for (const auto& t : spec.outputs) first_outputs.emplace_back(tensor_bytes(t), 0xFF);
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    const auto& t = spec.outputs[i];
    auto& bytes = storage.emplace_back(first_outputs[i]);
    outputs.push_back({t.name, t.dtype, t.shape, bytes.data(), bytes.size()});
  }

  const ms::RunResult ran = ms::run(compiled.so_path, spec, inputs, outputs, ms::RunOptions{});
  json diagnostics = json::array();
  for (const auto& d : ran.diagnostics) {
    json item = {{"kind", ms::diagnostic_kind_name(d.kind)}, {"message", d.message}, {"buffer", d.buffer}, {"count", d.count}};
    if (d.has_thread) item["thread_position"] = position(d.thread_position);
    item["threadgroup_position"] = position(d.threadgroup_position);
    diagnostics.push_back(std::move(item));
  }
  result["stage"] = "run";
  result["ok"] = ran.ok;
  result["run"] = {{"ok", ran.ok}, {"seconds", ran.seconds}, {"diagnostics", diagnostics}};
  const auto& found = ran.diagnostics;
  if (std::any_of(found.begin(), found.end(), is_threadgroup_read) &&
      std::all_of(found.begin(), found.end(), is_read_a_mac_runs))
    result["run"]["threadgroup_reads_reach_outputs"] =
        threadgroup_reads_reach_outputs(compiled.so_path, spec, inputs, first_outputs);

  std::ofstream out(outputs_path, std::ios::binary | std::ios::trunc);
  for (const auto& o : outputs) out.write(static_cast<const char*>(o.data), static_cast<std::streamsize>(o.bytes));
  if (!out.flush()) throw UsageError("cannot write " + outputs_path.string());
  print_result(result, result_out);
  return 0;
}

const char* const kUsage =
    "usage: ksearch-metalsim run --spec SPEC.json --inputs IN.bin --outputs OUT.bin [--source]\n"
    "Runs one MLX custom-kernel call with metalsim (docs/METAL.md, \"MLX custom kernels on Linux\").\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? kUsageError : 0;
  }
  try {
    if (args[0] != "run") throw UsageError("unknown command '" + args[0] + "'");
    fs::path spec, inputs, outputs;
    bool with_source = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      auto value = [&]() -> fs::path {
        if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
        return args[++i];
      };
      if (args[i] == "--spec") spec = value();
      else if (args[i] == "--inputs") inputs = value();
      else if (args[i] == "--outputs") outputs = value();
      else if (args[i] == "--source") with_source = true;
      else throw UsageError("unknown option '" + args[i] + "'");
    }
    if (spec.empty() || inputs.empty() || outputs.empty()) throw UsageError("--spec, --inputs and --outputs are required");
    return run_command(spec, inputs, outputs, with_source);
  } catch (const std::exception& e) {
    // Bad spec JSON and unreadable files land here, as do usage errors.
    std::cerr << "ksearch-metalsim: " << e.what() << "\n";
    if (dynamic_cast<const UsageError*>(&e)) std::cerr << kUsage;
    return kUsageError;
  }
}
