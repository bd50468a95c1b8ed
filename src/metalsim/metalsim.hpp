// metalsim: run Metal kernels written for MLX's custom-kernel API
// (mx.fast.metal_kernel) on the host CPU with Metal semantics.
//
//   KernelSpec spec{...};
//   std::string msl = generate_source(spec);          // what MLX would hand to Metal
//   CompileResult c = compile(spec, {});              // .so in the cache, or errors
//   RunResult r = run(c.so_path, spec, inputs, outputs, {});
//
// compile() and run() are independent: run() needs only the .so path and the
// spec (spec_to_json/spec_from_json carry the spec to a separate runner process).
// See docs/METALSIM.md for semantics, diagnostics and limits.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ksearch::metalsim {

enum class Dtype { float32, float16, bfloat16, int32, uint32, int64, uint64, int16, uint16, int8, uint8, bool_ };

// MLX names: "float32", "float16", "bfloat16", "int32", ..., "bool".
std::optional<Dtype> parse_dtype(std::string_view name);
std::string_view dtype_name(Dtype d);
std::size_t dtype_size(Dtype d);

struct TensorSpec {
  std::string name;
  Dtype dtype = Dtype::float32;
  std::vector<int64_t> shape;  // empty: a 0-d array (passed as `const constant T&`)
  // Elements between neighbours along each dimension (none negative), for an input that MLX passes as it lies in
  // memory (ensure_row_contiguous=False on a transposed, sliced or broadcast view): its buffer holds the memory the
  // view spans (memory_elements) and `<name>_strides` gives these. Empty: row-contiguous.
  std::vector<int64_t> strides;
};

// The elements a buffer for t holds: its shape's product, or with strides the span of memory its view reaches.
std::size_t memory_elements(const TensorSpec& t);

struct TemplateArg {
  enum class Kind { Int, Bool, Type };
  std::string name;
  Kind kind = Kind::Int;
  int int_value = 0;
  bool bool_value = false;
  Dtype type_value = Dtype::float32;
  static TemplateArg integer(std::string n, int v) { return {std::move(n), Kind::Int, v, false, Dtype::float32}; }
  static TemplateArg boolean(std::string n, bool v) { return {std::move(n), Kind::Bool, 0, v, Dtype::float32}; }
  static TemplateArg type(std::string n, Dtype t) { return {std::move(n), Kind::Type, 0, false, t}; }
};

struct KernelSpec {
  std::string name;
  std::vector<TensorSpec> inputs;   // order = MLX input_names
  std::vector<TensorSpec> outputs;  // order = MLX output_names
  std::string source;               // kernel body
  std::string header;
  std::vector<TemplateArg> template_args;
  std::array<int, 3> grid{1, 1, 1};         // in threads, like MLX
  std::array<int, 3> threadgroup{1, 1, 1};  // clamped to the grid, like MLX
  bool ensure_row_contiguous = true;
  bool atomic_outputs = false;
  std::optional<float> init_value;
};

std::string spec_to_json(const KernelSpec& spec);
KernelSpec spec_from_json(std::string_view json);  // throws std::runtime_error

// MLX's kernel name: custom_kernel_<name>[_<template>]_<input types>_<output types>.
std::string kernel_name(const KernelSpec& spec);
// The kernel source exactly as MLX writes it (what verbose=True prints); MLX
// prepends its utils header (bf16, elem_to_loc, ...) when it builds the library.
std::string generate_source(const KernelSpec& spec);

struct CompileOptions {
  std::filesystem::path cache_dir;  // empty: the metalsim folder of ksearch's cache (core cache_subdir)
  std::string compiler = "clang++";  // one executable, found on PATH
  std::string optimization = "-O2";  // one flag
};

struct CompileMessage {
  std::string file;  // "body", "header", "generated" (metalsim's code) or "shim"
  int line = 0;      // 1-based line in that file; for body/header: the user's line
  int column = 0;    // approximate: rewriting may shift columns
  std::string severity;  // "error", "warning", "note"
  std::string message;
};

struct CompileResult {
  bool ok = false;
  std::filesystem::path so_path;
  std::vector<CompileMessage> messages;
  std::string log;  // raw compiler output
  bool cached = false;
  double seconds = 0;
};

CompileResult compile(const KernelSpec& spec, const CompileOptions& options = {});

struct Buffer {
  std::string name;
  Dtype dtype = Dtype::float32;
  std::vector<int64_t> shape;
  void* data = nullptr;  // row-contiguous
  std::size_t bytes = 0;
};

// The order in which a run's threads take turns where they do not wait for one another (docs/METALSIM.md, "Schedules").
// A GPU promises none: a kernel whose results differ between schedules has a race or probes the schedule.
enum class Schedule {
  in_order,         // threadgroups and threads by index, each thread running until it waits (a barrier, a SIMD-group
                    // function) or ends
  reversed,         // threadgroups, SIMD groups and the lanes within each in reverse index order
  atomic_lockstep,  // in order, but every thread waits for its turn before each atomic operation: the lanes of a SIMD
                    // group (and the SIMD groups) each do an atomic operation before any goes on past its next one, as
                    // a GPU executes one instruction for the whole SIMD group
};
inline constexpr Schedule kSchedules[] = {Schedule::in_order, Schedule::reversed, Schedule::atomic_lockstep};
std::string_view schedule_name(Schedule s);  // "in-order", "reversed", "atomic-lockstep"
// For messages: "metalsim's reversed schedule (threadgroups, SIMD groups and the lanes of each in reverse order)".
std::string_view schedule_description(Schedule s);
// What outputs or findings that differ between schedules mean, for messages (a clause, no final period).
inline constexpr const char* kOrderDependence =
    "the result depends on the order threads run in, which a GPU does not fix: a data race (threads reading what others "
    "write, through atomics too, with no barrier between) or a kernel that probes the emulator's schedule";

struct RunOptions {
  bool check_bounds = true;         // device buffers get red zones; OOB accesses are reported
  bool check_races = true;          // data races on threadgroup and device memory
  bool check_uninitialized = true;  // reads of never-written threadgroup memory
  unsigned workers = 0;             // host threads running threadgroups; 0 = hardware concurrency
  std::size_t stack_bytes = 128 * 1024;  // per Metal thread (fiber)
  double timeout_seconds = 240;          // then every thread still running stops (Timeout); 0: no limit
  std::size_t max_diagnostics = 32;
  // The byte that threadgroup memory holds before a thread writes it (variables and, with bounds checks, the red zones
  // around them): what an uninitialized or out-of-bounds read finds; also the bytes of the value a SIMD-group
  // function's read of an inactive lane gives. 0xFF: NaN, all ones.
  unsigned char undefined_fill = 0xFF;
  Schedule schedule = Schedule::in_order;
};

enum class DiagnosticKind {
  OutOfBounds,
  ThreadgroupMemoryLimit,  // more than 32 KiB of threadgroup variables declared
  ThreadgroupTooLarge,     // more than 1024 threads per threadgroup
  BarrierDivergence,       // a barrier not reached by every thread, or different barriers
  Deadlock,
  DataRace,                // conflicting accesses to threadgroup or device memory that nothing orders
  UninitializedRead,       // threadgroup memory read before any write
  InactiveLaneRead,        // a SIMD-group function read a lane not active at the call (or past the 32): undefined
  InputWrite,              // a write to an input (const device memory; on a Mac it changes the caller's array)
  MisalignedAccess,        // an access at an address that is not a multiple of its size (through a cast pointer)
  DivisionByZero,          // an integer division or remainder by zero, or of the most negative value by -1
  StackOverflow,           // a thread's private memory (arrays, structs) beyond its stack
  Timeout,                 // a thread still running when the run's time ran out (an endless loop)
  Trap,                    // a trap instruction: code the compiler found unreachable (a missing return), __builtin_trap
  UnmatchedOverload,       // a call of functions overloaded by address space with arguments in spaces none takes
  InvalidLaunch,           // buffers do not match the spec, bad grid, .so not loadable
  Internal,
};
std::string_view diagnostic_kind_name(DiagnosticKind k);

struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::Internal;
  std::string message;
  bool has_thread = false;
  std::array<uint32_t, 3> thread_position{};       // thread_position_in_grid
  std::array<uint32_t, 3> threadgroup_position{};  // threadgroup_position_in_grid
  std::string buffer;  // device buffer or threadgroup variable involved, if any
  uint64_t count = 1;  // occurrences folded into this record
};

struct RunResult {
  bool ok = false;
  std::vector<Diagnostic> diagnostics;
  double seconds = 0;
};

// Loads a kernel library and its line tables ahead of its runs, while file opens are still allowed (a sandboxed
// runner's); "" or the reason it cannot be loaded.
std::string preload(const std::filesystem::path& so_path);

// Runs the kernel once over spec.grid. inputs/outputs follow the spec's order
// and must match its dtypes and shapes; outputs are written in place.
RunResult run(const std::filesystem::path& so_path, const KernelSpec& spec, std::span<Buffer> inputs,
              std::span<Buffer> outputs, const RunOptions& options = {});

// Buffers for the spec's outputs over `storage` (one byte vector per output, as long as the output's bytes): a kernel
// run again from the same first bytes writes there.
std::vector<Buffer> output_buffers(const KernelSpec& spec, std::vector<std::vector<std::byte>>& storage);

// Whether the values that a run's undefined reads found (threadgroup memory before any write or in its red zones,
// inactive SIMD lanes: RunOptions::undefined_fill) matter: the kernel runs twice more from the outputs' first bytes
// (`first_outputs`, one vector per output), with those values made of 0xFF and of 0x00 bytes; they matter where the two
// runs leave different outputs or either finds a kind of diagnostic that `first`, the run that found the reads, did not
// (an index made of such a value going out of bounds). `options` sets the runs but for the fill: one worker keeps the
// order of float atomics fixed. A kernel that reads and discards such values (CUB's guarded shuffle trees over a
// partial SIMD group, `select(0.0f, partial[lane], lane < n)`) is right on a GPU, whatever it found there.
bool undefined_reads_matter(const std::filesystem::path& so_path, const KernelSpec& spec, std::span<Buffer> inputs,
                            const std::vector<std::vector<std::byte>>& first_outputs, const RunResult& first,
                            RunOptions options);

}  // namespace ksearch::metalsim
