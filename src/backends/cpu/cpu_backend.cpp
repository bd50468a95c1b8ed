// The cpu backend: candidates are C++ compiled with the system compiler into a shared object and
// run by ksearch-runner-cpu.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "backends/backend.hpp"
#include "backends/cpu/cpu_tools.hpp"
#include "backends/cpu/host_info.hpp"
#include "core/build_cache.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/process.hpp"
#include "core/timing_lock.hpp"
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
using ksearch::backends::half_of_memory;
using ksearch::backends::load_rules;
using ksearch::backends::require_source_format;
using ksearch::backends::shared_library_result;
using ksearch::tasks::Task;
using ksearch::tasks::argument_comment;
using ksearch::tasks::entry_prototype;
using ksearch::tasks::entry_file;

namespace fs = std::filesystem;

namespace ksearch::cpu {

std::string target_march() {
  const char* march = std::getenv("KSEARCH_CPU_MARCH");
  return march && *march ? march : "native";
}

std::vector<std::string> candidate_flags(const std::string& march) {
  return {"-std=c++20", "-O3", "-march=" + march, "-fopenmp"};
}

// ceilings_probe.cpp, embedded by the build (src/backends/cpu/CMakeLists.txt).
extern const char* const kCeilingsProbeSource;

nlohmann::json measure_ceilings(const std::string& march) {
  BuildRequest request;
  request.kind = "cpu-probe";
  request.files = {{"ceilings_probe.cpp", kCeilingsProbeSource}};
  request.command = {"g++"};
  for (const auto& flag : candidate_flags(march)) request.command.push_back(flag);
  request.command.insert(request.command.end(), {"ceilings_probe.cpp", "-o", "{out}"});
  request.artifact_name = "ceilings_probe";
  const BuildOutcome build = build_cached(request);
  if (!build.ok) throw Error("cannot build the cpu ceilings probe:\n" + tail_lines(build.log, 20));
  CommandOptions options;
  options.timeout = std::chrono::minutes(5);
  CommandResult run;
  {
    TimingLock lock;
    run = run_command({build.artifact.string()}, options);
  }
  auto report = nlohmann::json::parse(run.output, nullptr, false);
  if (!run.ok() || !report.is_object() || !report.contains("flops_per_s"))
    throw Error("the cpu ceilings probe failed:\n" + tail_lines(run.output, 20));
  return report;
}

namespace {

// Bumped when the way ceilings are measured changes, so that no earlier measurement is reused
// (version 1 ran a fixed 512-bit loop compiled with the runner's flags: 13 GFLOP/s on an AVX2 host).
constexpr int kCeilingsVersion = 3;

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string source_extension() const override { return ".cpp"; }
  std::string code_language() const override { return "cpp"; }
  bool available(std::string*) const override { return true; }

  const HardwareProfile& profile() override {
    if (!profile_) {
      HardwareProfile p;
      const HostInfo host = host_info();
      p.name = fmt::format("cpu: {}, {} cores, {}", host.model, host.cores, host.simd);
      p.rules = load_rules(profiles_dir() / "cpu.rules.toml");
      const Ceilings c = ceilings();
      p.prose = substitute(read_file(profiles_dir() / "cpu.md"),
                           {{"model", host.model},
                            {"cores", std::to_string(host.cores)},
                            {"simd", host.simd},
                            {"l1d", fmt::format("{} KiB", host.l1d_bytes / 1024)},
                            {"l2", fmt::format("{} KiB", host.l2_bytes / 1024)},
                            {"llc", fmt::format("{} MiB", host.llc_bytes / (1024 * 1024))},
                            {"bandwidth", fmt::format("{:.1f} GB/s", c.bandwidth_bytes_per_s / 1e9)},
                            {"flops", fmt::format("{:.1f} GFLOP/s", c.flops_per_s / 1e9)},
                            {"exp", fmt::format("{:.1f} G/s", c.transcendentals_per_s / 1e9)},
                            {"rules", p.rules.describe()}});
      profile_ = std::move(p);
    }
    return *profile_;
  }

  std::string entry_description(const Task& task) const override {
    return entry_prototype(task, "cpu") + "\n" + argument_comment(task, "cpu") +
           "// Compiled as C++20 with g++ -O3 -march=" + cpu::target_march() +
           " -fopenmp into a shared object; called on host memory."
           "\n// All work must be finished when the function returns. Optional tensors may be NULL.";
  }

  BuildResult build(const Task& task, const std::string& source) override {
    return shared_library_result(build_cached(build_request(task, source)));
  }

  ExportBundle export_bundle(const Task& task, const std::string& source, std::string verification,
                             const std::string& format) const override {
    require_source_format(name(), format);
    const std::string file = task.name + ".cpp";
    // The compiler and code-generation flags every candidate was built and timed with.
    const std::string compiler = fmt::format("g++ {}", fmt::join(cpu::candidate_flags(), " "));
    const std::string shared_library = fmt::format("{} -fPIC -shared {} -o lib{}.so", compiler, file, task.name);
    verification += fmt::format(
        "\nBuild as a shared library (the compiler and flags ksearch built and timed it with):\n"
        "  {}\n"
        "or compile it into your program ({} -c {}) and declare\n"
        "  {};\n"
        "All work is finished when the function returns; pointers are host memory, contiguous, row-major.\n",
        shared_library, compiler, file, entry_prototype(task, "cpu"));
    ExportBundle b;
    b.files.push_back({file, comment_block(verification) + "\n" + source});
    b.note = "build: " + shared_library;
    return b;
  }

  std::optional<Preprocessed> preprocess(const Task& task, const std::string& source) override {
    return Preprocessed{preprocess_uncached(build_request(task, source)), "candidate.cpp"};
  }

  fs::path runner_executable() const override { return runner_dir().path / "ksearch-runner-cpu"; }

  runner::RunnerLimits runner_limits() const override {
    runner::RunnerLimits limits;
    limits.memory_bytes = half_of_memory(uint64_t(16) << 30);
    limits.cpu_seconds = 900;
    return limits;
  }

  Ceilings ceilings() override {
    std::lock_guard lock(mutex_);
    if (!ceilings_) ceilings_ = measured_locked(false);
    return *ceilings_;
  }

  Ceilings remeasure_ceilings() override {
    std::lock_guard lock(mutex_);
    if (!remeasured_) {
      ceilings_ = measured_locked(true);
      remeasured_ = true;
    }
    return *ceilings_;
  }

  size_t host_flush_bytes() const override { return std::max<size_t>(2 * host_info().llc_bytes, size_t(64) << 20); }
  bool reports_host_clock() const override { return true; }

 private:
  static BuildRequest build_request(const Task& task, const std::string& source) {
    BuildRequest request;
    request.kind = "cpu";
    request.files = {{"candidate.cpp", source}, {"entry.cpp", entry_file(task, "cpu", "candidate.cpp")}};
    request.command = {"g++"};
    for (const auto& flag : cpu::candidate_flags()) request.command.push_back(flag);
    // Full RELRO: the candidate's GOT is read-only once loaded, like the runner's.
    request.command.insert(request.command.end(), {"-fPIC", "-shared", "-fno-gnu-unique", "-Wno-attributes",
                                                   "-Wl,-z,relro,-z,now", "entry.cpp", "-o", "{out}"});
    request.timeout = std::chrono::seconds(120);
    return request;
  }

  // The cached ceilings, measured where there are none (or `again`: then each rate is the larger of the cached
  // and the new measurement's, and the merged file replaces the cached one).
  static Ceilings measured_locked(bool again) {
    const HostInfo host = host_info();
    // Another machine (model, cores, vector extension), another probe or another method measures anew.
    const std::string key = sha256_hex(fmt::format("{}|{}|{}|{}", kCeilingsVersion, host.fingerprint(), cpu::target_march(),
                                                   sha256_hex(cpu::kCeilingsProbeSource)));
    const fs::path file = cache_subdir("ceilings") / ("cpu-" + key.substr(0, 16) + ".json");
    nlohmann::json j;
    if (fs::exists(file)) j = nlohmann::json::parse(read_file(file), nullptr, false);
    if (!j.is_object() || again) {
      nlohmann::json measured = cpu::measure_ceilings();
      measured["version"] = kCeilingsVersion;
      measured["host"] = host.fingerprint();
      if (j.is_object()) {
        for (const char* rate : {"bandwidth_bytes_per_s", "flops_per_s", "exp_per_s"})
          measured[rate] = std::max(measured.value(rate, 0.0), j.value(rate, 0.0));
        measured["measurements"] = j.value("measurements", 1) + 1;
      }
      j = std::move(measured);
      write_file_atomic(file, json_text(j, 2));
    }
    std::string method = j.value("method", "");
    if (j.value("measurements", 1) > 1) method += fmt::format(" (each the largest of {} measurements)", j.value("measurements", 1));
    return Ceilings{j.value("bandwidth_bytes_per_s", 0.0), j.value("flops_per_s", 0.0), method, host.llc_bytes,
                    j.value("exp_per_s", 0.0)};
  }

  std::mutex mutex_;
  std::optional<HardwareProfile> profile_;
  std::optional<Ceilings> ceilings_;
  bool remeasured_ = false;
};

KSEARCH_REGISTER_BACKEND("cpu", CpuBackend);

}  // namespace
}  // namespace ksearch::cpu
