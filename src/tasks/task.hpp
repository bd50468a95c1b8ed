#pragma once
// tasks/task: a task as its TOML file states it: tensors, axes, parameters, workloads (some held
// out), per-backend entry points and seeds, tolerances and cost expressions (docs/TASKS.md).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace ksearch::tasks {

// How the values of one input are drawn: realistic and non-degenerate, never constant.
struct Distribution {
  std::string kind = "normal";  // normal | uniform | log_uniform | neg_log_uniform | randint
  double a = 0, b = 1;          // normal: mean, std; uniform/log_uniform/randint: lo, hi
  // A bound given as an expression over axes and params (an index input's `hi = "vocab - 1"`), resolved per
  // workload by Task::dist_for; empty where the number above is the bound.
  std::string a_expr, b_expr;
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> shape;  // one expression over axes/params per dimension
  bool optional = false;           // may be absent in a workload (passed as a null pointer)
  Distribution dist;               // inputs only
  std::string description;
};

struct ParamSpec {
  std::string name;
  DType dtype = DType::i32;  // f32, f64, i32, i64 or bool
  double default_value = 0;
  std::string description;
};

// A condition every workload's sizes and parameters meet, which the kernels may rely on (`hkv divides hq`): checked
// on the task file's workloads and by exported modules on their callers' arguments.
struct Constraint {
  std::string check;  // an expression over axes and params, nonzero where it holds
  std::string says;   // the condition in words, for messages
};

struct Workload {
  std::string name;
  std::map<std::string, int64_t> axes;
  std::map<std::string, double> params;                         // overrides of defaults
  std::map<std::string, std::vector<std::string>> shapes;       // per-workload shape overrides
  std::set<std::string> absent;                                  // optional tensors left out
  bool held_out = false;
  std::vector<std::string> backends;  // empty = every backend
  bool runs_on(const std::string& backend) const;
};

struct Tolerance {
  double rtol = 1e-5, atol = 1e-6;
  // Bound on each output row's relative L2 error, ||out - ref|| <= norm_rtol ||ref|| + atol sqrt(n).
  // The elementwise bound already implies it at rtol, so it is tighter: honest kernels' errors are
  // far below rtol, a kernel computing in a lower precision than the task's sits near it everywhere.
  double norm_rtol = -1;  // < 0: rtol / 4
  double row_norm_rtol() const { return norm_rtol >= 0 ? norm_rtol : rtol / 4; }
};

// The function a candidate implements for one backend.
struct EntrySpec {
  std::string backend;
  std::string function;
  std::vector<std::string> args;  // names of tensors, axes and params, in call order
  std::filesystem::path seed;     // the naive seed kernel (absolute)
  std::map<std::string, std::string> options;  // backend-specific (e.g. metal grid expressions)
};

// A reference written like a candidate for one backend (`[reference.<backend>]`), run on that backend's
// device for the workloads too large for the CPU reference.
struct DeviceReferenceSpec {
  std::string backend;
  std::filesystem::path source;  // absolute
  std::string source_hash;       // of its text: keys its cached outputs and its verification
  double above_flops = 1e9;      // used for workloads whose reference cost (Task::reference_cost) is at least this
};

struct Task {
  std::string name;
  std::string description;
  std::filesystem::path file;  // the task file
  std::filesystem::path dir;
  std::vector<std::pair<std::string, std::string>> axes;  // name, description (declaration order)
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ParamSpec> params;
  std::map<DType, Tolerance> tolerances;
  std::string flops_expr = "0";
  std::string bytes_expr = "0";
  std::string transcendentals_expr = "0";  // exp/log/sin...: counted apart, they run on slower units
  std::vector<Constraint> constraints;
  std::vector<Workload> workloads;
  std::map<std::string, EntrySpec> entries;  // by backend name
  std::filesystem::path reference_source;
  double reference_timeout_s = 600;  // how long the CPU reference may take on one workload ([reference] timeout)
  std::map<std::string, DeviceReferenceSpec> device_references;  // by backend name
  std::string content_hash;  // of the task file and the (CPU) reference source

  const TensorSpec* find_tensor(const std::string& name) const;
  const ParamSpec* find_param(const std::string& name) const;
  bool is_axis(const std::string& name) const;
  const Workload& workload(const std::string& name) const;  // throws Error
  const EntrySpec& entry(const std::string& backend) const;  // throws Error
  Tolerance tolerance(DType dtype) const;

  // Values of axes and params (with defaults) for a workload, for expressions.
  std::map<std::string, double> bindings(const Workload& w) const;
  // An input's distribution with its expression bounds evaluated on a workload.
  Distribution dist_for(const TensorSpec& t, const Workload& w) const;
  // What generates a workload's inputs beyond the task file's bytes, as text: every input's name, dtype, shape,
  // optionality and distribution, and the workload's bindings (axes, parameters, present tensors) and shapes. The
  // caches keyed by content_hash (reference outputs, the seed's timings) add it: a task changed in memory (a test's
  // wider inputs or other axes) must not be handed the results of the file's workloads.
  std::string generation_spec(const Workload& w) const;
  // Concrete shape of a tensor in a workload (empty if absent). Throws Error when a dimension is no positive integer
  // (load_task has checked every workload of the file; a task changed in memory may still hold one).
  std::optional<std::vector<int64_t>> shape_of(const TensorSpec& t, const Workload& w) const;
  // The host memory a workload's tensors take: inputs and outputs in their dtypes and the reference's double copies.
  uint64_t tensor_bytes(const Workload& w) const;
  double flops(const Workload& w) const;
  double bytes(const Workload& w) const;
  double transcendentals(const Workload& w) const;
  // What decides between the CPU and a device reference: the flops, or the bytes where flops are 0.
  double reference_cost(const Workload& w) const;
  // The device reference that gives a workload's reference outputs on `backend`, or null where the CPU
  // reference does (no device reference for the backend, or the workload costs less than its threshold).
  const DeviceReferenceSpec* device_reference_for(const std::string& backend, const Workload& w) const;
  std::vector<const Workload*> workloads_for(const std::string& backend, bool held_out) const;
};

// Loads and validates a task file (TOML). Errors name the file, line and field.
Task load_task(const std::filesystem::path& file);

// A port is evaluated by the metal backend through the task's [entry.metal]; a task without one gets
// its [entry.cuda] argument list (the same tensors, axes and params in the same order). Returns
// whether it added the entry.
bool add_metal_entry_from_cuda(Task& task);

// The task as a run on `backend` evaluated it: a metal run of a task without [entry.metal] is a port's (`ksearch run
// --from`, `ksearch port`), evaluated through its [entry.cuda] arguments (add_metal_entry_from_cuda).
Task load_run_task(const std::filesystem::path& file, const std::string& backend);

// The largest axis value or dimension: expressions compute in doubles, exact for integers up to 2^53.
inline constexpr double kMaxDimension = 9007199254740992.0;
// The most bytes a workload's tensors (Task::tensor_bytes) may take: half the machine's physical memory.
uint64_t workload_byte_limit();

// Elements and bytes of a shape; throw Error on a negative dimension or when they do not fit in 64 bits.
size_t element_count(const std::vector<int64_t>& shape);
size_t byte_count(const std::vector<int64_t>& shape, DType dtype);

}  // namespace ksearch::tasks
