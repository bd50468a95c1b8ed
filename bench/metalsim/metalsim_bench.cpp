// metalsim speed benchmark: compile and run times of three kernels from
// tests/metalsim/corpus at the sizes the issue sets targets for.
//   metalsim_bench [--no-checks] [--cache DIR]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "metalsim/metalsim.hpp"

using namespace ksearch::metalsim;

namespace {

std::string read(const std::string& f) {
  std::ifstream in(std::string(METALSIM_CORPUS_DIR) + "/" + f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TensorSpec t(std::string n, std::vector<int64_t> shape) { return {std::move(n), Dtype::float32, std::move(shape)}; }
Buffer b(const TensorSpec& s, std::vector<float>& v) { return {s.name, s.dtype, s.shape, v.data(), v.size() * 4}; }

struct Case {
  const char* label;
  double target_s;
  KernelSpec spec;
  std::vector<std::vector<float>> in, out;
};

}  // namespace

int main(int argc, char** argv) {
  CompileOptions copt;
  RunOptions ropt;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-checks")) ropt.check_bounds = ropt.check_races = ropt.check_uninitialized = false;
    else if (!std::strcmp(argv[i], "--cache") && i + 1 < argc) copt.cache_dir = argv[++i];
  }
  std::vector<Case> cases;
  {
    Case c{"elementwise 1M float32", 5.0, {}, {}, {}};
    const int n = 1 << 20;
    c.spec.name = "bench_elementwise";
    c.spec.inputs = {t("a", {n}), t("scale", {}), {"n_elems", Dtype::uint32, {}}};
    c.spec.outputs = {t("out", {n})};
    c.spec.source = read("elementwise.metal");
    c.spec.template_args = {TemplateArg::type("T", Dtype::float32)};
    c.spec.grid = {n, 1, 1};
    c.spec.threadgroup = {256, 1, 1};
    c.in = {std::vector<float>(n, 0.5f), {2.0f}, {0.0f}};
    uint32_t nn = n;
    std::memcpy(c.in[2].data(), &nn, 4);
    c.out = {std::vector<float>(n)};
    cases.push_back(std::move(c));
  }
  {
    Case c{"softmax 1024x1024 (simd_sum/simd_max)", 10.0, {}, {}, {}};
    c.spec.name = "bench_softmax";
    c.spec.inputs = {t("x", {1024, 1024})};
    c.spec.outputs = {t("out", {1024, 1024})};
    c.spec.source = read("softmax.metal");
    c.spec.template_args = {TemplateArg::type("T", Dtype::float32), TemplateArg::integer("N", 1024)};
    c.spec.grid = {1024 * 256, 1, 1};
    c.spec.threadgroup = {256, 1, 1};
    std::vector<float> x(1024 * 1024);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(i * 0.001f);
    c.in = {x};
    c.out = {std::vector<float>(x.size())};
    cases.push_back(std::move(c));
  }
  {
    Case c{"flash attention B=1 H=2 L=256 D=64 (simdgroup_matrix)", 60.0, {}, {}, {}};
    const int H = 2, L = 256, D = 64;
    c.spec.name = "bench_flash_attention";
    c.spec.inputs = {t("Q", {H, L, D}), t("K", {H, L, D}), t("V", {H, L, D}), t("scale", {})};
    c.spec.outputs = {t("out", {H, L, D})};
    c.spec.source = read("flash_attention.metal");
    c.spec.template_args = {TemplateArg::integer("L", L), TemplateArg::integer("D", D)};
    c.spec.grid = {32 * (L / 8), H, 1};
    c.spec.threadgroup = {32, 1, 1};
    std::vector<float> q(H * L * D);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(i * 0.01f);
    c.in = {q, q, q, {0.125f}};
    c.out = {std::vector<float>(q.size())};
    cases.push_back(std::move(c));
  }
  int failures = 0;
  std::printf("checks: %s\n", ropt.check_bounds ? "on (bounds, races, uninitialized)" : "off");
  for (auto& c : cases) {
    CompileResult cr = compile(c.spec, copt);
    if (!cr.ok) {
      std::printf("%s: compile failed\n%s\n", c.label, cr.log.c_str());
      return 1;
    }
    std::vector<Buffer> in, out;
    for (std::size_t i = 0; i < c.in.size(); ++i) in.push_back(b(c.spec.inputs[i], c.in[i]));
    for (std::size_t i = 0; i < c.out.size(); ++i) out.push_back(b(c.spec.outputs[i], c.out[i]));
    RunResult rr = run(cr.so_path, c.spec, in, out, ropt);
    bool ok = rr.ok && rr.seconds < c.target_s;
    failures += !ok;
    std::printf("%-58s compile %6.2f s%s  run %7.3f s  (target < %.0f s) %s\n", c.label, cr.seconds,
                cr.cached ? " (cached)" : "", rr.seconds, c.target_s, ok ? "ok" : "FAIL");
    for (const auto& d : rr.diagnostics) std::printf("  %s\n", d.message.c_str());
  }
  return failures ? 1 : 0;
}
