// The cpu ceilings: the FMA peak the probe measures is at least what an honest compute-bound kernel
// reaches, and its exp rate at least what the cpu templates' own exp reaches, at the native vector width and on a
// simulated AVX2 host (-march=haswell).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>

#include "backends/cpu/cpu_tools.hpp"
#include "core/build_cache.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "core/timing_lock.hpp"

using namespace ksearch;

namespace {

// The rate `key` that tests/data/ceilings/`program` prints, built with the candidates' flags for `march` (with
// `headers`, name -> path, beside it).
double test_program_rate(const std::string& program, const std::map<std::string, std::string>& headers,
                         const std::string& march, const std::string& key) {
  BuildRequest request;
  request.kind = "test-bench";
  request.files = {{"program.cpp", read_file(std::string(KSEARCH_TEST_DATA) + "/ceilings/" + program)}};
  for (const auto& [name, path] : headers) request.files.emplace_back(name, read_file(path));
  request.command = {"g++"};
  for (const auto& flag : cpu::candidate_flags(march)) request.command.push_back(flag);
  request.command.insert(request.command.end(), {"program.cpp", "-o", "{out}"});
  request.artifact_name = "program";
  const BuildOutcome build = build_cached(request);
  EXPECT_TRUE(build.ok) << build.log;
  CommandResult run;
  {
    TimingLock lock;
    run = run_command({build.artifact.string()});
  }
  const auto report = nlohmann::json::parse(run.output, nullptr, false);
  EXPECT_TRUE(run.ok() && report.is_object()) << run.output;
  return report.value(key, 0.0);
}

bool host_has(const std::string& flag) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

// The probe's rate over the honest kernel's, each pair measured one right after the other.
struct Sitting {
  double peak = 0, honest = 0, exps = 0, template_exps = 0;
  double fma_share() const { return peak / honest; }
  double exp_share() const { return exps / template_exps; }
};

Sitting measure_sitting(const std::string& march) {
  Sitting s;
  s.honest = test_program_rate("register_blocked_matmul.cpp", {}, march, "flops_per_s");
  s.template_exps = test_program_rate(
      "template_exp_chains.cpp", {{"vector.h", std::string(KSEARCH_CPU_TEMPLATES) + "/common/vector.h"}}, march, "exp_per_s");
  const nlohmann::json ceilings = cpu::measure_ceilings(march);
  s.peak = ceilings.at("flops_per_s").get<double>();
  s.exps = ceilings.value("exp_per_s", 0.0);
  std::cout << "-march=" << march << ": FMA ceiling " << s.peak / 1e9 << " GFLOP/s (" << ceilings.value("isa", "")
            << ", " << ceilings.value("vector_bits", 0) << "-bit x " << ceilings.value("accumulators", 0)
            << " accumulators, " << ceilings.value("threads", 0) << " threads), register-blocked matmul "
            << s.honest / 1e9 << " GFLOP/s, bandwidth " << ceilings.value("bandwidth_bytes_per_s", 0.0) / 1e9
            << " GB/s; exp ceiling " << s.exps / 1e9 << " G/s, the templates' exp " << s.template_exps / 1e9 << " G/s\n";
  return s;
}

void expect_ceilings_reach_honest_kernels(const std::string& march) {
  // Other processes only slow a measurement down, and where the kernel reaches the machine's peak (it did at 99%
  // on a 16-thread host with AVX2) the two differ by noise alone. Each sitting measures the honest kernels and the
  // probe back to back, so that both see the same load (on a 2-vCPU CI host the check failed once with the honest kernels
  // measured once and the probe three times after them); the best sitting of five counts.
  constexpr double kNoise = 0.95;
  Sitting best_fma, best_exp;
  for (int sitting = 0; sitting < 5; ++sitting) {
    const Sitting s = measure_sitting(march);
    if (sitting == 0 || s.fma_share() > best_fma.fma_share()) best_fma = s;
    if (sitting == 0 || s.exp_share() > best_exp.exp_share()) best_exp = s;
    if (best_fma.fma_share() >= kNoise && best_exp.exp_share() >= kNoise) break;
  }
  // Within 5%: what this catches is a probe systematically below the hardware (13 GFLOP/s against an honest 170
  // once; on AVX-512, an exp ceiling 19% below the templates' own exp, which made the scan's share of its roofline
  // look that much larger); an evaluation that sees a kernel beat the ceilings measures them again (evaluator.cpp).
  EXPECT_GE(best_fma.peak, kNoise * best_fma.honest) << "an honest kernel beats the measured FMA ceiling by more than noise";
  EXPECT_GE(best_exp.exps, kNoise * best_exp.template_exps)
      << "the templates' own exp beats the measured exp ceiling by more than noise";
  // A polynomial exp costs about a dozen vector operations: its rate lies well below the FMA rate
  // and well above what scalar libm calls reach.
  EXPECT_GT(best_exp.exps, best_fma.peak / 200);
  EXPECT_LT(best_exp.exps, best_fma.peak / 4);
}

TEST(CpuCeilings, ReachHonestKernelsAtTheNativeWidth) { expect_ceilings_reach_honest_kernels("native"); }

TEST(CpuCeilings, ReachHonestKernelsOnAnAvx2Host) {
  if (!host_has("avx2") || !host_has("fma")) GTEST_SKIP() << "this host has no AVX2 and FMA";
  expect_ceilings_reach_honest_kernels("haswell");
}

}  // namespace
