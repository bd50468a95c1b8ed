// Host-side tests of the cuda backend: they need nvcc but no GPU, and run in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "backends/backend.hpp"
#include "backends/cuda/cuda_tools.hpp"
#include "backends/rules.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/registry.hpp"
#include "test_common.hpp"

using ksearch::backends::BuildResult;
using ksearch::backends::ExportBundle;
using ksearch::backends::make_backend;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::DeviceReferenceSpec;
using ksearch::tasks::Task;
using ksearch::tasks::list_builtin_tasks;
using ksearch::tasks::resolve_task;

namespace fs = std::filesystem;
using namespace ksearch;

namespace {

bool have_nvcc() { return !cuda::nvcc_path().empty(); }

std::vector<Task> cuda_tasks() {
  std::vector<Task> out;
  for (auto& t : list_builtin_tasks())
    if (t.entries.count("cuda")) out.push_back(t);
  return out;
}

// Every variant the tests build: defaults, and each knob at each of its values with the others at defaults.
std::vector<proposers::builtin::KnobValues> variants(const proposers::builtin::Family& f) {
  std::vector<proposers::builtin::KnobValues> out = {f.defaults()};
  for (const auto& k : f.knobs)
    for (int64_t v : k.values) {
      if (v == k.default_value) continue;
      auto values = f.defaults();
      values[k.name] = v;
      out.push_back(values);
    }
  return out;
}

// Each source passes the text rules.
void expect_rules_pass(const backends::RuleSet& rules, std::initializer_list<const char*> sources) {
  for (const char* source : sources) {
    const auto violations = rules.check(source);
    EXPECT_TRUE(violations.empty()) << source << violations[0].rule << ": " << violations[0].message;
  }
}

// Each source is refused by the text rules, first by the rule named beside it.
void expect_refused_by(const backends::RuleSet& rules, const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [source, rule] : cases) {
    const auto violations = rules.check(source);
    ASSERT_FALSE(violations.empty()) << source;
    EXPECT_EQ(violations[0].rule, rule) << source;
  }
}

std::string variant_name(const proposers::builtin::KnobValues& values) {
  std::string name;
  for (const auto& [k, v] : values) name += "_" + k + std::to_string(v);
  return name;
}

}  // namespace

TEST(CudaHost, BackendIsRegistered) {
  auto backend = make_backend("cuda");
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_EQ(backend->source_extension(), ".cu");
  const Task task = resolve_task("softmax");
  const std::string entry = backend->entry_description(task);
  EXPECT_NE(entry.find("cudaStream_t stream"), std::string::npos) << entry;
  // The brief states what the prototype leaves out: each tensor's dtype and declared shape.
  const std::string bf16 = backend->entry_description(resolve_task("attention_bf16"));
  EXPECT_NE(bf16.find("//   q        bf16[b, hq, lq, d] input"), std::string::npos) << bf16;
}

TEST(CudaHost, TargetArchFromEnvironment) {
  setenv("KSEARCH_CUDA_ARCH", "sm_80", 1);
  EXPECT_EQ(cuda::target_arch(), "80");
  unsetenv("KSEARCH_CUDA_ARCH");
  const auto command = cuda::nvcc_command("90a", "in.cu", "out.so");
  EXPECT_NE(std::find(command.begin(), command.end(), "-gencode=arch=compute_90a,code=sm_90a"), command.end());
}

// Candidates link the driver library (TMA tensor maps): against the toolkit's stub where the toolkit has one, else
// against the installed driver's by soname.
TEST(CudaHost, TheDriverLibraryIsLinkedThroughTheToolkitsStubOrBySoname) {
  const auto toolkit = std::filesystem::temp_directory_path() / ("ksearch-fake-toolkit-" + std::to_string(getpid()));
  std::filesystem::create_directories(toolkit / "bin");
  setenv("KSEARCH_NVCC", (toolkit / "bin/nvcc").c_str(), 1);
  auto command = cuda::nvcc_command("90a", "in.cu", "out.so");
  EXPECT_NE(std::find(command.begin(), command.end(), "-l:libcuda.so.1"), command.end());
  std::filesystem::create_directories(toolkit / "targets/x86_64-linux/lib/stubs");
  std::ofstream(toolkit / "targets/x86_64-linux/lib/stubs/libcuda.so").put('\0');
  command = cuda::nvcc_command("90a", "in.cu", "out.so");
  EXPECT_NE(std::find(command.begin(), command.end(), "-L" + (toolkit / "targets/x86_64-linux/lib/stubs").string()), command.end());
  EXPECT_NE(std::find(command.begin(), command.end(), "-lcuda"), command.end());
  EXPECT_EQ(std::find(command.begin(), command.end(), "-l:libcuda.so.1"), command.end());
  unsetenv("KSEARCH_NVCC");
  std::filesystem::remove_all(toolkit);
}

TEST(CudaHost, SeedsPassTheRules) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  const auto tasks = cuda_tasks();
  ASSERT_GE(tasks.size(), 6u);
  for (const auto& task : tasks) {
    const auto violations = rules.check(read_file(task.entry("cuda").seed));
    EXPECT_TRUE(violations.empty()) << task.name << ": " << (violations.empty() ? "" : violations[0].message);
  }
}

// The text rules alone: they never reject a case that expects another status. Cases that hide
// their names from the text (token pasting, macros) are left to the next test.
TEST(CudaHost, TextRulesRejectOnlyRejectedCases) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  int rejected = 0;
  for (const auto& file : cuda_test::adversarial_files()) {
    const std::string source = read_file(file);
    const auto violations = rules.check(source);
    if (cuda_test::header_status(source, "expect") != "rejected")
      EXPECT_TRUE(violations.empty()) << file.filename() << ": " << violations[0].message;
    rejected += !violations.empty();
  }
  EXPECT_GE(rejected, 4);
}

// The rules as the evaluator applies them (text, nvcc -E's output, the built library): each case that
// expects `rejected` is rejected by a rule its first line names, and no other case is rejected.
TEST(CudaHost, AdversarialCasesAreRejectedByTheRulesTheyName) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  const Task task = resolve_task("softmax");
  for (const auto& file : cuda_test::adversarial_files()) {
    const std::string source = read_file(file);
    BuildResult build;
    const auto early = Evaluator(task, *backend, {}).check_and_build(source, build);
    if (cuda_test::header_status(source, "expect") != "rejected") {
      EXPECT_FALSE(early) << file.filename() << ": " << early->message;
      continue;
    }
    ASSERT_TRUE(early && early->status == Status::rejected) << file.filename() << (early ? ": " + early->message : "");
    const std::string first_line = source.substr(0, source.find('\n'));
    const std::string named = first_line.substr(0, first_line.find("):") + 1);
    EXPECT_NE(named.find(early->violations.front().rule), std::string::npos)
        << file.filename() << " was rejected by another rule: " << early->message;
  }
}

// Every family's source compiles as it is written in templates/cuda/ (with its shared headers, at the
// defaults of its #define lines), with the candidates' nvcc command, and serves its built-in task.
TEST(CudaHost, TemplatesCompileInPlace) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto provider = proposers::builtin::provider_for("cuda");
  ASSERT_TRUE(provider);
  const fs::path out = cache_subdir("cuda-tests") / ("in-place-" + std::to_string(getpid()) + ".so");
  int compiled = 0;
  for (const std::string& name : provider->tasks()) {
    const auto families = provider->families(resolve_task(name));
    EXPECT_FALSE(families.empty()) << "no family in templates/cuda/" << name << " serves the built-in task";
    for (const auto& family : families) {
      CommandOptions options;
      options.timeout = std::chrono::minutes(5);
      const CommandResult r = run_command(cuda::nvcc_command(cuda::target_arch(), family.source.string(), out.string()), options);
      EXPECT_TRUE(r.ok()) << family.source << ":\n" << r.output;
      ++compiled;
    }
  }
  fs::remove(out);
  EXPECT_GE(compiled, 11);
}

// Every seed and every template family at its defaults passes every rule, the built library's included.
TEST(CudaHost, SeedsAndTemplatesPassTheRulesOnWhatTheCompilerSees) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  auto provider = proposers::builtin::provider_for("cuda");
  ASSERT_TRUE(provider);
  int checked = 0;
  double slowest_ms = 0;  // of the object rules alone, on a library already built
  for (const auto& task : cuda_tasks()) {
    std::vector<std::pair<std::string, std::string>> sources = {{"seed", read_file(task.entry("cuda").seed)}};
    for (const auto& family : provider->families(task))
      sources.push_back({family.name, provider->render(task, family.name, family.defaults())});
    for (const auto& [name, source] : sources) {
      BuildResult build;
      const auto early = Evaluator(task, *backend, {}).check_and_build(source, build);
      EXPECT_FALSE(early) << task.name << "/" << name << ": " << early->message << "\n" << early->log;
      if (early) continue;
      const auto start = std::chrono::steady_clock::now();
      backend->profile().rules.object.check(build.artifact["library"].get<std::string>());
      slowest_ms = std::max(slowest_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
  EXPECT_LT(slowest_ms, 1000);
  std::printf("object rules: at most %.1f ms per library\n", slowest_ms);
}

TEST(CudaHost, RulesAllowOrdinaryKernels) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  const std::string ok =
      "#include <cuda_bf16.h>\n#include <mma.h>\n#include <sys/types.h>\n"
      "__device__ __forceinline__ float warp_sum(float v) { return v; }\n"
      "__constant__ float table[2] = {1.0f, 2.0f};\n"
      "template <int N> __device__ void f(float (&a)[N]) {}\n"
      "static constexpr int kTile = 64;\n"
      "__global__ void k(float* at_row) { __shared__ float s[32]; asm volatile(\"bar.sync 0;\"); }\n";
  const auto violations = rules.check(ok);
  EXPECT_TRUE(violations.empty()) << violations[0].rule << ": " << violations[0].message;
  for (const char* bad : {"#include <cublas_v2.h>\n", "#include <sys/stat.h>\n", "void f() { cublasSgemm(0); }\n", "__device__ float cache[1024];\n",
                          "void f() { cudaMallocManaged(0, 1); }\n", "void f(cudaStream_t s) { cudaDeviceSetLimit(cudaLimitStackSize, 1); }\n",
                          "void f() { cudaGraphLaunch(0, 0); }\n",
                          "void f(void** fn) { cudaDriverEntryPointQueryResult q; cudaGetDriverEntryPoint(\"cuMemAlloc\", fn, 0, &q); }\n"})
    EXPECT_FALSE(rules.check(bad).empty()) << bad;
}

// Library functions named like ordinary variables are refused where the candidate calls them, not where it names its
// own variables so; fprintf to stderr is printing.
TEST(CudaHost, RulesTellLibraryCallsFromTheCandidatesOwnNames) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  expect_rules_pass(rules, {
      "__global__ void k(float* s) { int read = 0, write = 1; s[read] = s[write]; read ^= 1; write ^= 1; }\n",
      "#include <cuda/pipeline>\n__global__ void k() { auto pipe = cuda::make_pipeline(); pipe.producer_commit(); }\n",
      "void check(cudaError_t e) { if (e) fprintf(stderr, \"%s\\n\", cudaGetErrorString(e)); }\n",
      "void f(size_t free, int times) {}\n",
  });
  expect_refused_by(rules, {
      {"void f(int* fds) { pipe(fds); }\n", "raw-syscalls"},
      {"void f(const char* s) { write(2, s, 4); }\n", "raw-syscalls"},
      {"__global__ void k(float** p) { *p = (float*)malloc(64); }\n", "host-memory"},
      {"void f(void* p) { free(p); }\n", "host-memory"},
      {"void f(float** p, size_t n) { cudaMalloc(p, n); }\n", "host-memory"},
      {"void f(float* p) { cudaFree(p); }\n", "host-memory"},
      {"void f() { FILE* out = fopen(\"/tmp/x\", \"w\"); fprintf(out, \"x\"); }\n", "files"},
  });
}

// cuRAND's device API (header-only generator states a kernel draws from) passes; its host API, which runs libcurand's
// own kernels, is a library fallback, and the toolkit's mutable skip-ahead tables may not be named.
TEST(CudaHost, RulesAllowCuRandsDeviceApiOnly) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  expect_rules_pass(rules, {
      "#include <curand_kernel.h>\n__global__ void k(float* y, unsigned long long seed) {\n"
      "  curandStatePhilox4_32_10_t s; curand_init(seed, threadIdx.x, 0, &s); y[threadIdx.x] = curand_uniform(&s); }\n",
      "#include <curand_kernel.h>\n__global__ void k(curandState* st, float* y) {\n"
      "  curandState s = st[threadIdx.x]; skipahead(4ull, &s); y[threadIdx.x] = curand_normal(&s); st[threadIdx.x] = s; }\n",
  });
  expect_refused_by(rules, {
      {"#include <curand.h>\n", "include"},
      {"void f(float* y) { curandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10); }\n", "libraries"},
      {"void f(float* y, size_t n) { curandGenerateUniform(0, y, n); }\n", "libraries"},
      {"__global__ void k() { atomicAdd(&precalc_xorwow_matrix[0][0], 1u); }\n", "device-state"},
      {"__global__ void k() { mrg32k3aM1[0][0][0] = 1u; }\n", "device-state"},
  });
}

// Constants pass whichever order their qualifiers come in (__constant__ __device__, const static), and a host-device
// macro does not make the next line's constant a __device__ variable; mutable ones stay refused.
TEST(CudaHost, RulesAcceptConstantsInEitherOrderAndStaticSharedScratch) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  expect_rules_pass(rules, {
      "__device__ __constant__ float kLog2e = 1.4427f;\n__constant__ __device__ float kLn2 = 0.6931f;\n",
      "#define HOST_DEVICE __host__ __device__\nconstexpr int kWarp = 32;\nHOST_DEVICE inline int f(int x) { return x; }\n",
      "const static int kThreads = 256;\nconstexpr static float kScale = 0.5f;\nstatic const int kWarps = 8;\n",
      // block-shared scratch: it lives as long as its block, as a plain __shared__ array does
      "__device__ float f(float v) { static __shared__ float partial[32]; partial[0] = v; return partial[1]; }\n",
      "__device__ float g(float v) { __shared__ static float partial[32]; partial[0] = v; return partial[1]; }\n",
  });
  expect_refused_by(rules, {
      {"#define HD __host__ __device__\n__device__ int calls = 0;\n", "device-state"},
      {"__device__ float cache[1024];\n", "device-state"},
      {"void f() { static int calls = 0; ++calls; }\n", "persistent-state"},
      {"__device__ float f(float v) { static __shared__ float s[32]; static float calls; return s[0] + calls; }\n",
       "persistent-state"},
      {"const static float* last = nullptr;\n", "persistent-state"},
  });
}

// Nothing may be declared in the toolkit's cuda namespace, however the namespace is opened; using its names is fine.
TEST(CudaHost, RulesRefuseDeclarationsInTheCudaNamespaceOnly) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  expect_rules_pass(rules, {
      "__device__ float f(float a, float b) { using namespace cuda::std; return plus<float>{}(a, b); }\n",
      "namespace lib = cuda::std;\nnamespace cudax { constexpr int kWarp = 32; }\n",
      // OpenCV's cv::cuda::device: a namespace of its own, nested
      "namespace cv { namespace cuda { namespace device { constexpr int kWarp = 32; } } }\n",
      "struct S { int a; };\nnamespace cv {\nstruct T { int b; };\nnamespace cuda { constexpr int kWarp = 32; }\n}\n",
  });
  expect_refused_by(rules, {
      {"namespace cuda { constexpr int kWarp = 32; }\n", "toolchain-namespaces"},
      {"namespace cuda::std { constexpr int kWarp = 32; }\n", "toolchain-namespaces"},
      {"inline namespace cuda { constexpr int kWarp = 32; }\n", "toolchain-namespaces"},
      // after other blocks, and inside blocks whose declarations are the global namespace's
      {"struct S { int a; };\nnamespace lib { }\nnamespace cuda { constexpr int kWarp = 32; }\n", "toolchain-namespaces"},
      {"extern \"C++\" { namespace cuda { constexpr int kWarp = 32; } }\n", "toolchain-namespaces"},
      {"inline namespace v1 { namespace cuda { constexpr int kWarp = 32; } }\n", "toolchain-namespaces"},
  });
}

TEST(CudaHost, ExportBundle) {
  const Task task = resolve_task("attention_bf16");
  const auto files = cuda::cuda_export_bundle(task, read_file(task.entry("cuda").seed));
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].first, "attention_bf16.cu");
  EXPECT_NE(files[0].second.find("extern \"C\" void attention("), std::string::npos);
  EXPECT_NE(files[1].second.find("torch::kBFloat16"), std::string::npos);
  EXPECT_NE(files[1].second.find("getCurrentCUDAStream"), std::string::npos);
  // A function-style cast to a pointer type ("const float*(p)") is not C++: the binding must cast properly.
  EXPECT_NE(files[1].second.find("reinterpret_cast<const __nv_bfloat16*>(q.data_ptr())"), std::string::npos) << files[1].second;
  EXPECT_EQ(files[1].second.find("*(q.data_ptr())"), std::string::npos);
  EXPECT_NE(files[1].second.find("PYBIND11_MODULE"), std::string::npos);
  EXPECT_EQ(files[2].first, "setup.py");  // PyTorch's default nvcc flags would reject implicit bf16 conversions
  EXPECT_NE(files[2].second.find("-U__CUDA_NO_BFLOAT16_CONVERSIONS__"), std::string::npos);
  // and with the language options the kernel was built with (constexpr host functions in device code, device lambdas)
  for (const auto& flag : cuda::nvcc_language_flags()) {
    EXPECT_NE(files[0].second.find(flag), std::string::npos) << flag;
    EXPECT_NE(files[2].second.find("'" + flag + "'"), std::string::npos) << flag;
  }
}

TEST(CudaHost, SeedsCompile) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  for (const auto& task : cuda_tasks()) {
    const BuildResult r = backend->build(task, read_file(task.entry("cuda").seed));
    EXPECT_TRUE(r.ok) << task.name << ":\n" << r.log;
  }
}

TEST(CudaHost, AdversarialSourcesCompile) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  const Task task = resolve_task("softmax");
  for (const auto& file : cuda_test::adversarial_files()) {
    const BuildResult r = backend->build(task, read_file(file));
    EXPECT_TRUE(r.ok) << file.filename() << ":\n" << r.log;
  }
}

// nvcc compiles libstdc++'s std::countr_zero, std::gcd, 64-bit std::popcount, ... to constants in device code (they
// call GCC built-ins the device side lacks, and --expt-relaxed-constexpr lets device code call them): such a candidate
// does not build, and says what to use; the same functions on the host and in constant evaluation still build.
TEST(CudaHost, DeviceCodeReachingBuiltinsNvccMiscompilesDoesNotBuild) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  const Task task = resolve_task("softmax");
  const auto candidate = [](const std::string& device_value, const std::string& host_threads) {
    return "#include <bit>\n#include <numeric>\n#include <cstdint>\n"
           "__global__ void k(const float* x, float* y, int64_t n, unsigned v) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) y[i] = x[i] + float(" + device_value + ");\n}\n"
           "extern \"C\" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {\n"
           "  const int threads = " + host_threads + ";\n"
           "  k<<<(rows * cols + threads - 1) / threads, threads, 0, stream>>>(x, y, rows * cols, unsigned(cols));\n}\n";
  };
  for (const std::string device_value : {"std::countr_zero(v)", "std::gcd(v, 12u)", "std::popcount(uint64_t(v))",
                                         "std::countl_zero(uint64_t(v))", "__builtin_bswap32(v)"}) {
    const BuildResult r = backend->build(task, candidate(device_value, "256"));
    EXPECT_FALSE(r.ok) << device_value;
    EXPECT_NE(r.log.find("which nvcc compiles to a constant there"), std::string::npos) << device_value << ":\n" << r.log;
    EXPECT_NE(r.log.find("cuda::std::"), std::string::npos) << r.log;
  }
  // the host's, constant evaluation in device code, the 32-bit counts nvcc has, a built-in of a literal, and libcu++'s
  for (const auto& [device_value, host_threads] : std::vector<std::pair<std::string, std::string>>{
           {"std::integral_constant<int, std::countr_zero(8u) + std::gcd(12, 18)>::value",
            "int(std::bit_ceil(uint64_t(cols)) >> std::countr_zero(uint64_t(cols) | 1u)) % 1024 + 1"},
           {"std::popcount(v) + std::countl_zero(v) + std::bit_width(v) + __builtin_ctz(0x80000000u)", "256"}}) {
    const BuildResult r = backend->build(task, candidate(device_value, host_threads));
    EXPECT_TRUE(r.ok) << device_value << ":\n" << r.log;
  }
  const BuildResult libcu = backend->build(
      task, "#include <cuda/std/bit>\n" + candidate("cuda::std::countr_zero(v) + cuda::std::popcount(uint64_t(v))", "256"));
  EXPECT_TRUE(libcu.ok) << libcu.log;
}

// Every tasks/*/reference.cu is a task's cuda device reference, passes the rules (which do not apply to
// trusted code, but it is written like a candidate) and builds like a candidate.
TEST(CudaHost, DeviceReferencesPassRulesAndCompile) {
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  std::set<fs::path> declared;
  for (const auto& task : cuda_tasks()) {
    if (!task.device_references.count("cuda")) continue;
    const DeviceReferenceSpec& spec = task.device_references.at("cuda");
    declared.insert(fs::weakly_canonical(spec.source));
    const std::string source = read_file(spec.source);
    const auto violations = rules.check(source);
    EXPECT_TRUE(violations.empty()) << spec.source << ": " << (violations.empty() ? "" : violations[0].message);
    if (!have_nvcc()) continue;
    const BuildResult r = backend->build(task, source);
    EXPECT_TRUE(r.ok) << spec.source << ":\n" << r.log;
  }
  EXPECT_GE(declared.size(), 5u);
  for (const auto& entry : fs::directory_iterator(builtin_tasks_dir()))
    if (fs::exists(entry.path() / "reference.cu"))
      EXPECT_TRUE(declared.count(fs::weakly_canonical(entry.path() / "reference.cu"))) << entry.path() << " declares no [reference.cuda]";
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found: rules checked, builds skipped";
}

// Every template family at its defaults and at each knob value: rules pass and nvcc builds it.
// With KSEARCH_CUDA_DUMP_DIR set, the rendered sources are written there (bench/cuda uses them).
TEST(CudaHost, TemplatesPassRulesAndCompile) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  const auto& rules = backend->profile().rules;
  const char* dump = std::getenv("KSEARCH_CUDA_DUMP_DIR");
  int families = 0;
  for (const auto& task : cuda_tasks()) {
    auto provider = proposers::builtin::provider_for("cuda");
    ASSERT_TRUE(provider);
    for (const auto& family : provider->families(task)) {
      ++families;
      for (const auto& values : variants(family)) {
        const std::string source = provider->render(task, family.name, values);
        const auto violations = rules.check(source);
        EXPECT_TRUE(violations.empty()) << task.name << "/" << family.name << ": " << violations[0].message;
        const BuildResult r = backend->build(task, source);
        EXPECT_TRUE(r.ok) << task.name << "/" << family.name << variant_name(values) << ":\n" << r.log;
        if (dump && r.ok) {
          const fs::path dir = fs::path(dump) / task.name;
          fs::create_directories(dir);
          std::ofstream(dir / (family.name + variant_name(values) + ".cu")) << source;
        }
      }
    }
  }
  EXPECT_GE(families, 6);
}

// The translator's cuRAND kernels (honest CUDA that draws from Philox and XORWOW states, as dropout and noise kernels
// do) pass every rule and build for their tasks: cuRAND's device API is allowed, its skip-ahead tables included.
TEST(CudaHost, CuRandDeviceApiKernelsPassEveryRuleAndBuild) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  const fs::path translate = KSEARCH_TRANSLATE_TESTS_DIR;
  int checked = 0;
  for (const char* task_name : {"philox_dropout", "xorwow_noise"}) {
    const Task task = resolve_task((translate / "tasks" / task_name).string());
    for (const auto& file : cuda_test::cu_files("", (translate / "corpus" / task_name).c_str())) {
      BuildResult build;
      const auto early = Evaluator(task, *backend, {}).check_and_build(read_file(file), build);
      EXPECT_FALSE(early) << file << ": " << status_name(early->status) << ": " << early->message << "\n" << early->log;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4);
}

// Honest kernels in the styles of real code (tests/cuda/honest/): no rule refuses them, neither on the text, nor on
// what the preprocessor makes of it, nor on the built library, and each builds for its task. A kernel whose header
// names a rule on a line "// refused-today: RULE ..." is still refused by that rule (a known false refusal whose fix
// is pending, docs/CUDA.md): it must be refused by exactly that rule, so that the fix shows here.
TEST(CudaHost, HonestKernelsPassEveryRuleAndBuild) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found";
  auto backend = make_backend("cuda");
  int checked = 0;
  for (const auto& file : cuda_test::honest_files()) {
    const std::string source = read_file(file);
    const Task task = resolve_task(cuda_test::header_status(source, "task"));
    BuildResult build;
    const auto early = Evaluator(task, *backend, {}).check_and_build(source, build);
    ++checked;
    const std::string refused_by = cuda_test::header_status(source, "refused-today");
    if (refused_by.empty()) {
      EXPECT_FALSE(early) << file.filename() << ": " << status_name(early->status) << ": " << early->message << "\n" << early->log;
      continue;
    }
    ASSERT_TRUE(early && early->status == Status::rejected)
        << file.filename() << " passes now: remove its refused-today line" << (early ? ": " + early->message : "");
    for (const auto& violation : early->violations)
      EXPECT_EQ(violation.rule, refused_by) << file.filename() << ": " << violation.message;
  }
  EXPECT_GE(checked, 20);
}
