// ksearch-metalsim: runs one MLX custom-kernel call (mx.fast.metal_kernel) with metalsim, every
// check on. The metalsim_mlx Python package (python/) drives it as a subprocess:
//
//   ksearch-metalsim run --spec SPEC.json --inputs IN.bin --outputs OUT.bin [--source]
//
// SPEC.json is metalsim's spec JSON (spec_from_json). IN.bin holds the inputs' row-contiguous
// bytes (an input with strides: the memory its view spans) back to back in spec order; OUT.bin receives the outputs the same way. stdout gets one
// JSON object: {"ok", "stage": "compile"|"run", "compile": {...}, "run": {...}[, "source"]}.
//
// A kernel whose text has atomics or threadgroup variables runs again under metalsim's other schedules (reversed,
// atomic-lockstep; docs/METALSIM.md "Schedules") from the same initial outputs; findings there, or outputs that
// differ, are a schedule dependence: "run" gets "schedule_dependence" and "ok" is false. $METALSIM_SCHEDULES (a comma
// list of schedule names, or "all", the default) picks the schedules; METALSIM_SCHEDULES=in-order runs only the first.
// Exit status 0 whenever that object was written (also for compile errors and diagnostics),
// 2 for bad usage or unreadable files, 3 when the host compiler is missing.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/dtype.hpp"
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

// Reads of an undefined value: threadgroup memory that no thread wrote or past a threadgroup variable (red zones), a
// SIMD-group function's read of an inactive lane. On a GPU they find whatever lies there, and a kernel that discards
// the value (`select(0.0f, partial[lane], lane < n)`, a lane whose shuffled sum is never stored) is right.
bool is_undefined_read(const ms::Diagnostic& d) {
  return (d.kind == ms::DiagnosticKind::UninitializedRead && d.message.starts_with("read of uninitialized")) ||
         (d.kind == ms::DiagnosticKind::OutOfBounds && d.message.starts_with("out-of-bounds read of threadgroup memory")) ||
         d.kind == ms::DiagnosticKind::InactiveLaneRead;
}
// The findings metalsim_mlx warns about rather than raises (python/metalsim_mlx/kernel.py): those reads, and reads
// past the end of device buffers.
bool is_read_a_mac_runs(const ms::Diagnostic& d) {
  return is_undefined_read(d) ||
         (d.kind == ms::DiagnosticKind::OutOfBounds && d.message.starts_with("out-of-bounds read of device buffer"));
}

// --- Schedules ---------------------------------------------------------------------------------------------------

constexpr const char* kSchedulesEnv = "METALSIM_SCHEDULES";

// Every schedule but the in-order one, in metalsim's order.
std::vector<ms::Schedule> every_other_schedule() {
  std::vector<ms::Schedule> out;
  for (const ms::Schedule s : ms::kSchedules)
    if (s != ms::Schedule::in_order) out.push_back(s);
  return out;
}

// The schedules $METALSIM_SCHEDULES names besides the in-order one, which always runs first (its outputs are the
// call's): unset, empty or "all": every other one.
std::vector<ms::Schedule> other_schedules() {
  const char* value = std::getenv(kSchedulesEnv);
  std::vector<ms::Schedule> out;
  if (!value || !*value || std::string_view(value) == "all") return every_other_schedule();
  std::stringstream list(value);
  for (std::string name; std::getline(list, name, ',');) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    std::replace(name.begin(), name.end(), '_', '-');
    if (name.empty()) continue;
    if (name == "all") return every_other_schedule();
    bool known = false;
    for (const ms::Schedule s : ms::kSchedules)
      if (ms::schedule_name(s) == name) {
        known = true;
        if (s != ms::Schedule::in_order && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
      }
    if (!known)
      throw UsageError(std::string("$") + kSchedulesEnv + "=" + value + ": unknown schedule '" + name +
                       "' (in-order, reversed, atomic-lockstep, all)");
  }
  return out;
}

// Atomic operations: never race-checked, and the only way the order of threads reaches a race-free kernel's outputs.
bool uses_atomics(const ms::KernelSpec& spec) {
  // Any "atomic" (mlx_atomic_fetch_add too): a comment that mentions one costs only the extra runs.
  return spec.atomic_outputs || spec.source.find("atomic") != std::string::npos ||
         spec.header.find("atomic") != std::string::npos;
}
// Threadgroup variables (`threadgroup float partial[32]`, not threadgroup_barrier), shared by the threads of a group.
bool uses_threadgroup_memory(const ms::KernelSpec& spec) {
  static const std::regex threadgroup(R"(\bthreadgroup\b)");
  return std::regex_search(spec.source, threadgroup) || std::regex_search(spec.header, threadgroup);
}

// The schedules this kernel runs under after the in-order one: a kernel that shares nothing but device memory (whose
// races metalsim reports under any order) gets none; atomic-lockstep differs from in-order only at atomics.
std::vector<ms::Schedule> schedules_for(const ms::KernelSpec& spec) {
  std::vector<ms::Schedule> out;
  const bool atomics = uses_atomics(spec);
  if (!atomics && !uses_threadgroup_memory(spec)) return out;
  for (const ms::Schedule s : other_schedules())
    if (s != ms::Schedule::atomic_lockstep || atomics) out.push_back(s);
  return out;
}

bool is_float(ms::Dtype d) {
  return d == ms::Dtype::float32 || d == ms::Dtype::float16 || d == ms::Dtype::bfloat16;
}

double load_float(const std::byte* p, std::size_t i, ms::Dtype d) {
  if (d == ms::Dtype::float32) {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, p + 2 * i, 2);
  return d == ms::Dtype::float16 ? ksearch::half_to_float(bits) : ksearch::bfloat_to_float(bits);
}

template <class T>
T load(const std::byte* p, std::size_t i) {
  T v;
  std::memcpy(&v, p + sizeof(T) * i, sizeof(T));
  return v;
}

std::string element_text(const std::byte* p, std::size_t i, ms::Dtype d) {
  std::ostringstream text;
  text.precision(9);
  switch (d) {
    case ms::Dtype::float32: case ms::Dtype::float16: case ms::Dtype::bfloat16: text << load_float(p, i, d); break;
    case ms::Dtype::int32: text << load<int32_t>(p, i); break;
    case ms::Dtype::uint32: text << load<uint32_t>(p, i); break;
    case ms::Dtype::int64: text << load<int64_t>(p, i); break;
    case ms::Dtype::uint64: text << load<uint64_t>(p, i); break;
    case ms::Dtype::int16: text << load<int16_t>(p, i); break;
    case ms::Dtype::uint16: text << load<uint16_t>(p, i); break;
    case ms::Dtype::int8: text << int(load<int8_t>(p, i)); break;
    case ms::Dtype::uint8: text << int(load<uint8_t>(p, i)); break;
    case ms::Dtype::bool_: text << (load<uint8_t>(p, i) ? "true" : "false"); break;
  }
  return text.str();
}

// How far apart two float results may lie when only the order of atomic additions changed: a relative difference,
// and an absolute one relative to the output's largest magnitude (a sum that cancels to near zero carries the
// rounding of its larger terms); wider for the 16-bit types, which round each addition. A schedule probe or a race
// changes values wholesale (0 for a result, a NaN, a missing term), far beyond these.
struct Tolerance {
  double rtol, scale_tol;
};
Tolerance reordering_tolerance(ms::Dtype d) {
  if (d == ms::Dtype::float16) return {1e-2, 2e-3};
  if (d == ms::Dtype::bfloat16) return {5e-2, 1e-2};
  return {1e-3, 1e-5};
}

// The first element where two runs' bytes of an output differ (beyond reordering where atomics add floats), or none.
std::optional<std::size_t> first_difference(const ms::TensorSpec& t, const std::vector<std::byte>& a,
                                            const std::vector<std::byte>& b, bool float_reordering) {
  const std::size_t size = ms::dtype_size(t.dtype), n = a.size() / size;
  if (!is_float(t.dtype)) {
    for (std::size_t i = 0; i < n; ++i)
      if (std::memcmp(a.data() + i * size, b.data() + i * size, size) != 0) return i;
    return std::nullopt;
  }
  const Tolerance tol = float_reordering ? reordering_tolerance(t.dtype) : Tolerance{0, 0};
  double scale = 0;  // the in-order output's largest finite magnitude
  if (float_reordering)
    for (std::size_t i = 0; i < n; ++i)
      if (const double x = std::fabs(load_float(a.data(), i, t.dtype)); std::isfinite(x)) scale = std::max(scale, x);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = load_float(a.data(), i, t.dtype), y = load_float(b.data(), i, t.dtype);
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;
    if (std::isfinite(x) && std::isfinite(y) &&
        std::fabs(x - y) <= tol.scale_tol * scale + tol.rtol * std::max(std::fabs(x), std::fabs(y)))
      continue;
    return i;
  }
  return std::nullopt;
}

json index_of(const ms::TensorSpec& t, std::size_t flat) {
  json index = json::array();
  if (!t.strides.empty() || t.shape.empty()) return index;
  std::vector<int64_t> at(t.shape.size());
  for (std::size_t k = t.shape.size(); k-- > 0;) {
    const auto extent = std::size_t(std::max<int64_t>(t.shape[k], 1));
    at[k] = int64_t(flat % extent);
    flat /= extent;
  }
  for (int64_t v : at) index.push_back(v);
  return index;
}

json diagnostics_json(const std::vector<ms::Diagnostic>& found) {
  json diagnostics = json::array();
  for (const auto& d : found) {
    json item = {{"kind", ms::diagnostic_kind_name(d.kind)}, {"message", d.message}, {"buffer", d.buffer}, {"count", d.count}};
    if (d.has_thread) item["thread_position"] = position(d.thread_position);
    item["threadgroup_position"] = position(d.threadgroup_position);
    diagnostics.push_back(std::move(item));
  }
  return diagnostics;
}

// Runs the kernel under each other schedule from the outputs' first bytes and compares with the in-order run: the
// first schedule with findings (beyond the reads a Mac runs that the in-order run had too) or different outputs gives
// {"schedule", "diagnostics"} or {"schedule", "output", "element", "index", "in_order", "value"}, with the schedule's
// "description" and the "meaning" of a dependence for messages; null when none.
json schedule_dependence(const fs::path& so, const ms::KernelSpec& spec, std::vector<ms::Buffer>& inputs,
                         const std::vector<std::vector<std::byte>>& first_outputs,
                         const std::vector<ms::Buffer>& in_order_outputs, bool in_order_clean,
                         const std::vector<ms::Schedule>& schedules) {
  const bool float_reordering = uses_atomics(spec);
  const auto described = [](ms::Schedule schedule, json found) {
    found["schedule"] = ms::schedule_name(schedule);
    found["description"] = ms::schedule_description(schedule);
    found["meaning"] = ms::kOrderDependence;
    return found;
  };
  for (const ms::Schedule schedule : schedules) {
    std::vector<std::vector<std::byte>> storage = first_outputs;
    std::vector<ms::Buffer> outputs = ms::output_buffers(spec, storage);
    ms::RunOptions options;
    options.schedule = schedule;
    const ms::RunResult ran = ms::run(so, spec, inputs, outputs, options);
    const auto& found = ran.diagnostics;
    if (!found.empty() && (in_order_clean || !std::all_of(found.begin(), found.end(), is_read_a_mac_runs)))
      return described(schedule, {{"diagnostics", diagnostics_json(found)}});
    for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
      const auto& t = spec.outputs[o];
      const auto* first = static_cast<const std::byte*>(in_order_outputs[o].data);
      const std::vector<std::byte> in_order(first, first + in_order_outputs[o].bytes);
      if (const auto i = first_difference(t, in_order, storage[o], float_reordering))
        return described(schedule, {{"output", t.name},
                                    {"element", *i},
                                    {"index", index_of(t, *i)},
                                    {"in_order", element_text(in_order.data(), *i, t.dtype)},
                                    {"value", element_text(storage[o].data(), *i, t.dtype)}});
    }
  }
  return nullptr;
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
  std::vector<std::vector<std::byte>> storage;
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
  std::vector<std::vector<std::byte>> first_outputs;
  for (const auto& t : spec.outputs) first_outputs.emplace_back(tensor_bytes(t), std::byte{0xFF});
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    const auto& t = spec.outputs[i];
    auto& bytes = storage.emplace_back(first_outputs[i]);
    outputs.push_back({t.name, t.dtype, t.shape, bytes.data(), bytes.size()});
  }

  const std::vector<ms::Schedule> schedules = schedules_for(spec);  // read $METALSIM_SCHEDULES before any run
  const ms::RunResult ran = ms::run(compiled.so_path, spec, inputs, outputs, ms::RunOptions{});
  result["stage"] = "run";
  result["ok"] = ran.ok;
  result["run"] = {{"ok", ran.ok}, {"seconds", ran.seconds}, {"diagnostics", diagnostics_json(ran.diagnostics)}};
  const auto& found = ran.diagnostics;
  const bool only_reads_a_mac_runs = std::all_of(found.begin(), found.end(), is_read_a_mac_runs);
  bool reads_matter = false;
  ms::RunOptions one_worker;
  one_worker.workers = 1;
  if (std::any_of(found.begin(), found.end(), is_undefined_read) && only_reads_a_mac_runs)
    result["run"]["undefined_reads_matter"] = reads_matter =
        ms::undefined_reads_matter(compiled.so_path, spec, inputs, first_outputs, ran, one_worker);
  // The other schedules, where the in-order run gave outputs that a Mac returns (clean, or reads it warns about).
  json ran_under = json::array({ms::schedule_name(ms::Schedule::in_order)});
  if (only_reads_a_mac_runs && !reads_matter && !schedules.empty()) {
    const json dependence =
        schedule_dependence(compiled.so_path, spec, inputs, first_outputs, outputs, found.empty(), schedules);
    for (const ms::Schedule s : schedules) ran_under.push_back(ms::schedule_name(s));
    if (!dependence.is_null()) {
      result["ok"] = false;
      result["run"]["schedule_dependence"] = dependence;
    }
  }
  result["run"]["schedules"] = ran_under;

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
