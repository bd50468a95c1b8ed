// The cuda backend: candidates are CUDA C++ compiled with nvcc (for the GPU's own architecture, or
// KSEARCH_CUDA_ARCH on a machine without one) into a shared object run by ksearch-runner-cuda.
// This file is host C++ only: it compiles and checks rules on machines without a GPU.
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#include "backends/backend.hpp"
#include "backends/cuda/cuda_tools.hpp"
#include "core/build_cache.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/process.hpp"
#include "runner/parent.hpp"
#include "tasks/signature.hpp"
#include "core/json_text.hpp"

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::backends::Ceilings;
using ksearch::backends::ExportBundle;
using ksearch::backends::HardwareProfile;
using ksearch::backends::Preprocessed;
using ksearch::backends::comment_block;
using ksearch::backends::load_rules;
using ksearch::backends::require_source_format;
using ksearch::backends::shared_library_result;
using ksearch::tasks::CallConvention;
using ksearch::tasks::Task;
using ksearch::tasks::argument_comment;
using ksearch::tasks::entry_prototype;
using ksearch::tasks::entry_file;

namespace fs = std::filesystem;

namespace ksearch::cuda {

fs::path nvcc_path() {
  if (const char* env = std::getenv("KSEARCH_NVCC"); env && *env) return env;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home && fs::exists(fs::path(home) / "bin/nvcc"))
    return fs::path(home) / "bin/nvcc";
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  const CommandResult r = run_command({"sh", "-c", "command -v nvcc"});
  if (r.ok() && !r.output.empty()) return r.output.substr(0, r.output.find('\n'));
  return {};
}

const GpuQuery& query_gpu() {
  static std::once_flag once;
  static GpuQuery query;
  std::call_once(once, [] {
    CommandOptions options;
    options.timeout = std::chrono::seconds(30);
    const CommandResult r = run_command({"nvidia-smi", "--query-gpu=compute_cap,name,uuid,driver_version",
                                         "--format=csv,noheader"}, options);
    if (!r.ok()) {
      query.why = "nvidia-smi found no NVIDIA GPU";
      return;
    }
    const std::string line = r.output.substr(0, r.output.find('\n'));
    const size_t comma = line.find(',');
    if (comma == std::string::npos || line.empty()) {
      query.why = "nvidia-smi listed no GPU";
      return;
    }
    query.compute_cap = line.substr(0, comma);
    query.fingerprint = line;
    query.present = true;
  });
  return query;
}

std::string target_arch() {
  if (const char* env = std::getenv("KSEARCH_CUDA_ARCH"); env && *env) {
    std::string arch = env;
    if (arch.rfind("sm_", 0) == 0) arch = arch.substr(3);
    return arch;
  }
  const GpuQuery& q = query_gpu();
  if (q.present) {
    const size_t dot = q.compute_cap.find('.');
    const int major = std::atoi(q.compute_cap.c_str()), minor = dot == std::string::npos ? 0 : std::atoi(q.compute_cap.c_str() + dot + 1);
    // Hopper's wgmma and setmaxnreg exist only in the architecture-specific sm_90a target.
    return fmt::format("{}{}{}", major, minor, major == 9 && minor == 0 ? "a" : "");
  }
  return "90a";  // no GPU here: build for the H100/H200
}

// C++20 (std::swap and the other constexpr standard functions are callable in device code), and PyTorch's and
// CUTLASS's extensions.
const std::vector<std::string>& nvcc_language_flags() {
  static const std::vector<std::string> flags = {"-std=c++20", "--expt-relaxed-constexpr", "--extended-lambda"};
  return flags;
}

std::vector<std::string> nvcc_command(const std::string& arch, const std::string& input, const std::string& output) {
  const fs::path nvcc = nvcc_path(), toolkit = nvcc.parent_path().parent_path(), lib = toolkit / "lib64";
  std::vector<std::string> command = {nvcc.string(), "-O3", "-lineinfo",
                                      fmt::format("-gencode=arch=compute_{0},code=sm_{0}", arch), "-Xcompiler=-fPIC",
                                      "-shared", "-cudart=shared", "-Xlinker", "-rpath=" + lib.string(),
                                      "-Wno-deprecated-gpu-targets"};
  command.insert(command.end(), nvcc_language_flags().begin(), nvcc_language_flags().end());
  // What <cub/cub.cuh> brings that the object rules would refuse, left out: NVTX's ranges (their injection loader
  // imports dlopen) and libstdc++'s <iostream> (for an iterator's operator<<; its static ios_base::Init runs at load
  // time). A candidate cannot include either itself (the include allowlist).
  command.insert(command.end(), {"-DNVTX_DISABLE", "-D_GLIBCXX_IOSTREAM"});
  command.insert(command.end(), {input, "-o", output});
  // The driver library for TMA's tensor maps (cuTensorMapEncodeTiled, the only driver function the object rules let a
  // candidate import): linked against the toolkit's stub where it has one, so it builds without a GPU (the driver's
  // own library loads at run time); else against the installed driver's by its soname.
  for (const fs::path stubs : {toolkit / "lib64/stubs", toolkit / "lib/stubs", toolkit / "targets/x86_64-linux/lib/stubs",
                               toolkit / "targets/sbsa-linux/lib/stubs"})
    if (fs::exists(stubs / "libcuda.so")) {
      command.insert(command.end(), {"-L" + stubs.string(), "-lcuda"});
      return command;
    }
  command.push_back("-l:libcuda.so.1");
  return command;
}

namespace {

// Bumped when the way ceilings are measured changes, so that no earlier measurement is reused
// (version 2 added the exp rate).
constexpr int kCeilingsVersion = 2;

class CudaBackend : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  std::string source_extension() const override { return ".cu"; }
  std::string code_language() const override { return "cuda"; }
  CallConvention call_convention() const override { return cuda::call_convention(); }

  bool available(std::string* why) const override {
    if (cuda::nvcc_path().empty()) return set(why, "nvcc not found (set KSEARCH_NVCC or CUDA_HOME)");
    if (!fs::exists(runner_executable()))
      return set(why, "ksearch-runner-cuda was not built (no CUDA toolkit at configure time)");
    const auto& q = cuda::query_gpu();
    if (!q.present) return set(why, q.why);
    return true;
  }

  const HardwareProfile& profile() override {
    std::lock_guard lock(mutex_);
    if (profile_) return *profile_;
    HardwareProfile p;
    p.rules = load_rules(profiles_dir() / "cuda.rules.toml");
    std::string why;
    const std::string arch = cuda::target_arch();
    std::map<std::string, std::string, std::less<>> values = {{"arch", "sm_" + arch}, {"rules", p.rules.describe()}};
    if (available(&why)) {
      const Measured& m = measured_locked();
      const auto& d = m.device;
      p.name = fmt::format("cuda: {}, {} SMs, sm_{}", d.value("name", "?"), d.value("sm_count", 0), arch);
      values.insert({{"device", d.value("name", "?")},
                     {"sm_count", std::to_string(d.value("sm_count", 0))},
                     {"smem_per_block", fmt::format("{} KiB", d.value("smem_per_block_optin", 0) / 1024)},
                     {"smem_per_sm", fmt::format("{} KiB", d.value("smem_per_sm", 0) / 1024)},
                     {"regs_per_sm", std::to_string(d.value("regs_per_sm", 0))},
                     {"l2", fmt::format("{} MiB", d.value("l2_bytes", 0) / (1024 * 1024))},
                     {"clock", fmt::format("{} MHz", d.value("clock_khz", 0) / 1000)},
                     {"memory", fmt::format("{:.0f} GiB", d.value("global_mem_bytes", 0.0) / (1024.0 * 1024 * 1024))},
                     {"bandwidth", fmt::format("{:.2f} TB/s", m.ceilings.bandwidth_bytes_per_s / 1e12)},
                     {"fp32_flops", fmt::format("{:.1f} TFLOP/s", m.fp32_flops / 1e12)},
                     {"mma_flops", fmt::format("{:.0f} TFLOP/s", m.mma_flops / 1e12)},
                     {"matrix_flops", fmt::format("{:.0f} TFLOP/s", m.ceilings.flops_per_s / 1e12)},
                     {"exp", fmt::format("{:.2f} T/s", m.ceilings.transcendentals_per_s / 1e12)}});
    } else {
      p.name = fmt::format("cuda: sm_{} (no GPU here: {})", arch, why);
      for (const char* key : {"device", "sm_count", "smem_per_block", "smem_per_sm", "regs_per_sm", "l2", "clock",
                              "memory", "bandwidth", "fp32_flops", "mma_flops", "matrix_flops", "exp"})
        values[key] = "(not measured: no GPU here)";
    }
    p.prose = substitute(read_file(profiles_dir() / "hopper.md"), values);
    profile_ = std::move(p);
    return *profile_;
  }

  std::string entry_description(const Task& task) const override {
    return entry_prototype(task, "cuda", cuda::call_convention()) +
           "\n" + argument_comment(task, "cuda", cuda::call_convention()) + "// CUDA C++17, compiled with nvcc -O3 for sm_" + cuda::target_arch() +
           " into a shared object. Pointers are device memory; launch every kernel on `stream`."
           "\n// All work must be finished or queued on `stream` when the function returns. Optional tensors may be NULL.";
  }

  BuildResult build(const Task& task, const std::string& source) override {
    BuildResult result = shared_library_result(build_cached(build_request(task, source)));
    result.log = explain_refused_builtin(std::move(result.log));
    return result;
  }

  // The bundle (kernel, PyTorch extension, setup.py, README) with the verification record on top of
  // its kernel file.
  ExportBundle export_bundle(const Task& task, const std::string& source, std::string verification,
                             const std::string& format) const override {
    require_source_format(name(), format);
    ExportBundle b;
    for (auto& [name, contents] : cuda::cuda_export_bundle(task, source)) b.files.push_back({name, contents});
    b.files.front().contents = comment_block(verification) + "\n" + b.files.front().contents;
    b.note = "see README.md beside the kernel for the nvcc and PyTorch build commands";
    return b;
  }

  // nvcc -E with -gencode preprocesses the device side (__CUDA_ARCH__ defined): host-only code under
  // #ifndef __CUDA_ARCH__ is not in the output; the object rules see what the host side imports.
  std::optional<Preprocessed> preprocess(const Task& task, const std::string& source) override {
    return Preprocessed{preprocess_uncached(build_request(task, source)), "candidate.cu"};
  }

  fs::path runner_executable() const override { return runner_dir().path / "ksearch-runner-cuda"; }

  runner::RunnerLimits runner_limits() const override {
    runner::RunnerLimits limits;
    limits.memory_bytes = 0;  // the CUDA driver reserves far more address space than it uses
    limits.cpu_seconds = 900;
    return limits;
  }

  // compute-sanitizer beside nvcc; a report on the device names the first bad accesses.
  bool mixes_inputs_on_device() const override { return true; }

  std::vector<std::string> memcheck_launcher() const override {
    const fs::path nvcc = cuda::nvcc_path();
    const fs::path sanitizer = nvcc.empty() ? fs::path() : nvcc.parent_path() / "compute-sanitizer";
    if (sanitizer.empty() || !fs::exists(sanitizer)) return {};
    return {sanitizer.string(), "--tool", "memcheck", "--print-limit", "8", "--error-exitcode", "86"};
  }

  // The GPUs nvidia-smi lists, by index; a runner sees only its own (CUDA_VISIBLE_DEVICES), and
  // timings on different GPUs do not disturb each other's kernels, so each GPU has its timing lock.
  std::vector<std::string> devices() const override {
    CommandOptions options;
    options.timeout = std::chrono::seconds(30);
    const CommandResult r = run_command({"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"}, options);
    if (!r.ok()) throw Error("cannot list the GPUs: nvidia-smi failed: " + tail_lines(r.output, 5));
    std::vector<std::string> ids;
    std::istringstream lines(r.output);
    for (std::string id; lines >> id;) ids.push_back(id);
    if (ids.empty()) throw Error("nvidia-smi listed no GPU");
    return ids;
  }
  std::vector<std::string> device_environment(const std::string& device) const override {
    if (device.empty()) return {};
    return {"CUDA_VISIBLE_DEVICES=" + device};
  }
  std::string timing_lock_key(const std::string& device) const override { return device.empty() ? "" : "cuda" + device; }

  Ceilings ceilings() override {
    std::lock_guard lock(mutex_);
    return measured_locked().ceilings;
  }


 private:
  struct Measured {
    Ceilings ceilings;
    double fp32_flops = 0, mma_flops = 0;
    nlohmann::json device;
  };

  static BuildRequest build_request(const Task& task, const std::string& source) {
    BuildRequest request;
    request.kind = "cuda";
    request.files = {{"candidate.cu", source},
                     {"entry.cu", entry_file(task, "cuda", "candidate.cu", cuda::call_convention())},
                     {"device_builtins.h", read_file(include_dir() / "ksearch" / "cuda_device_builtins.h")}};
    request.command = cuda::nvcc_command(cuda::target_arch(), "entry.cu", "{out}");
    // GCC built-ins that nvcc folds to constants in device code (std::countr_zero, std::gcd, ...) refuse to build
    // there instead (the header says how); the user's own nvcc build of an exported kernel does not need it.
    request.command.insert(request.command.begin() + 1, {"--pre-include", "device_builtins.h"});
    request.timeout = std::chrono::seconds(300);
    request.memory_limit_bytes = size_t(32) << 30;  // cicc reserves a large address space
    return request;
  }

  // ptxas's words for a built-in the pre-included header refused in device code, with what to use instead.
  static std::string explain_refused_builtin(std::string log) {
    static const std::regex refused(R"(Unresolved extern function 'ksearch_device_code_calls_(__builtin_\w+)')");
    std::smatch match;
    if (!std::regex_search(log, match, refused)) return log;
    return fmt::format(
               "device code calls GCC's {}, which nvcc compiles to a constant there (libstdc++ reaches such built-ins "
               "from std::countr_zero, std::countr_one, std::gcd and std::lcm, and from std::popcount, "
               "std::countl_zero, std::bit_width, std::bit_floor and std::bit_ceil of 64-bit types): use libcu++'s "
               "cuda::std:: ones (<cuda/std/bit>, <cuda/std/numeric>) or the intrinsics __ffs, __clz, __popc, __brev, "
               "__byte_perm\n",
               match[1].str()) +
           log;
  }

  static bool set(std::string* why, const std::string& text) {
    if (why) *why = text;
    return false;
  }

  // Device properties and ceilings, measured once per GPU (name, uuid, driver) and cached.
  const Measured& measured_locked() {
    if (measured_) return *measured_;
    std::string why;
    if (!available(&why)) throw Error("the cuda backend cannot measure this machine: " + why);
    const fs::path file =
        cache_subdir("ceilings") /
        ("cuda-" + sha256_hex(fmt::format("{}|{}", kCeilingsVersion, cuda::query_gpu().fingerprint)).substr(0, 16) + ".json");
    nlohmann::json j;
    if (fs::exists(file)) j = nlohmann::json::parse(read_file(file), nullptr, false);
    if (!j.is_object() || !j.contains("device")) {
      runner::RunnerProcess process(runner_executable(), runner_limits());
      j = process.request({{"cmd", "ceilings"}}, std::chrono::minutes(5));
      j["device"] = process.request({{"cmd", "device_info"}}, std::chrono::minutes(1));
      j["gpu"] = cuda::query_gpu().fingerprint;
      for (const char* key : {"ok", "nonce"}) {  // protocol fields, not measurements
        j.erase(key);
        j["device"].erase(key);
      }
      write_file_atomic(file, json_text(j, 2));
    }
    Measured m;
    m.ceilings = Ceilings{j.value("bandwidth_bytes_per_s", 0.0), j.value("flops_per_s", 0.0), j.value("method", ""), 0,
                          j.value("exp_per_s", 0.0)};
    m.fp32_flops = j.value("fp32_flops_per_s", 0.0);
    m.mma_flops = j.value("bf16_mma_sync_flops_per_s", 0.0);
    m.device = j["device"];
    measured_ = m;
    return *measured_;
  }

  mutable std::mutex mutex_;
  std::optional<HardwareProfile> profile_;
  std::optional<Measured> measured_;
};

KSEARCH_REGISTER_BACKEND("cuda", CudaBackend);

}  // namespace
}  // namespace ksearch::cuda
