// Source generation: exact MLX text, host translation, compile errors mapped to user lines.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <tuple>

#include "helpers.hpp"

using namespace mstest;

namespace {

// A kernel of one float input `a` and one float output `o`, 16 elements each.
KernelSpec elementwise_spec(const std::string& name, const std::string& source = "") {
  KernelSpec s;
  s.name = name;
  s.inputs = {tensor("a", Dtype::float32, {16})};
  s.outputs = {tensor("o", Dtype::float32, {16})};
  s.source = source;
  return s;
}

KernelSpec sample_spec() {
  KernelSpec s;
  s.name = "t";
  s.inputs = {tensor("a", Dtype::float32, {16}), tensor("b", Dtype::float32, {2})};
  s.outputs = {tensor("o", Dtype::float32, {16})};
  s.source = "uint i = thread_position_in_grid.x; o[i] = a[i]*b[0]; // a_shape";
  s.header = "#define X 1\n";
  s.template_args = {TemplateArg::type("T", Dtype::bfloat16), TemplateArg::integer("N", 3),
                     TemplateArg::boolean("B", true)};
  s.grid = {16, 1, 1};
  s.threadgroup = {4, 1, 1};
  return s;
}

// Written from MLX 0.32.4's verbose output (see docs/METALSIM.md).
const char* kExpected = R"(#define X 1
template <typename T, int N, bool B>
[[kernel]] void custom_kernel_t__bfloat16_t_3_1_float_floatc_float(
  const device float* a [[buffer(0)]],
  const constant int* a_shape [[buffer(1)]],
  const constant float* b [[buffer(2)]],
  device float* o [[buffer(3)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
uint i = thread_position_in_grid.x; o[i] = a[i]*b[0]; // a_shape
}

template [[host_name("custom_kernel_t__bfloat16_t_3_1_float_floatc_float")]] [[kernel]] decltype(custom_kernel_t__bfloat16_t_3_1_float_floatc_float<bfloat16_t, 3, 1>) custom_kernel_t__bfloat16_t_3_1_float_floatc_float<bfloat16_t, 3, 1>;
)";

}  // namespace

TEST(MetalsimSource, MatchesRecordedMlxOutput) { EXPECT_EQ(generate_source(sample_spec()), kExpected); }

TEST(MetalsimSource, AtomicOutputsScalarInputAndStrides) {
  KernelSpec s;
  s.name = "k";
  s.inputs = {tensor("x", Dtype::float16, {8, 4}), tensor("s", Dtype::float32, {})};
  s.outputs = {tensor("out", Dtype::int32, {4})};
  s.atomic_outputs = true;
  s.source = "// x_strides x_ndim thread_index_in_simdgroup";
  std::string src = generate_source(s);
  EXPECT_NE(src.find("const device float16_t* x [[buffer(0)]],\n  const constant int64_t* x_strides [[buffer(1)]],\n"
                     "  const constant int& x_ndim [[buffer(2)]],\n  const constant float& s [[buffer(3)]],\n"
                     "  device atomic<int32_t>* out [[buffer(4)]],\n"
                     "  uint thread_index_in_simdgroup [[thread_index_in_simdgroup]]) {\n"),
            std::string::npos)
      << src;
  EXPECT_EQ(kernel_name(s), "custom_kernel_k_float16_t_floats_int32_t");
}

// Ground truth from the installed MLX: verbose=True prints the source while an
// exported function is traced (calling the kernel directly throws "No Metal
// back-end" before printing on Linux).
TEST(MetalsimSource, MatchesLiveMlx) {
  const char* py = R"(python3 -c '
import mlx.core as mx
k = mx.fast.metal_kernel(name="t", input_names=["a","b"], output_names=["o"], source="uint i = thread_position_in_grid.x; o[i] = a[i]*b[0]; // a_shape", header="#define X 1\n")
def f(a, b):
    return k(inputs=[a,b], output_shapes=[(16,)], output_dtypes=[mx.float32], grid=(16,1,1), threadgroup=(4,1,1), template=[("T", mx.bfloat16), ("N", 3), ("B", True)], verbose=True)
import tempfile, os
d = tempfile.mkdtemp()
mx.export_function(os.path.join(d, "f.mlxfn"), f, mx.arange(16, dtype=mx.float32), mx.ones((2,), dtype=mx.float32))
' 2>/dev/null)";
  FILE* p = popen(py, "r");
  std::string out;
  char b[4096];
  std::size_t n;
  while (p && (n = fread(b, 1, sizeof b, p)) > 0) out.append(b, n);
  int rc = p ? pclose(p) : -1;
  if (rc != 0 || out.find("```\n") == std::string::npos) GTEST_SKIP() << "python3 with mlx >= 0.32 not available";
  std::size_t start = out.find("```\n") + 4;
  std::size_t end = out.rfind("\n```");
  EXPECT_EQ(out.substr(start, end - start), generate_source(sample_spec()));
}

TEST(MetalsimSource, SpecJsonRoundTrip) {
  KernelSpec s = sample_spec();
  s.init_value = 2.5f;
  KernelSpec t = spec_from_json(spec_to_json(s));
  EXPECT_EQ(generate_source(t), generate_source(s));
  EXPECT_EQ(t.init_value, s.init_value);
  EXPECT_EQ(t.grid, s.grid);
}

// An input passed as it lies in memory (ensure_row_contiguous=False on a view) keeps its strides, and its buffer
// holds the memory the view spans.
TEST(MetalsimSource, SpecJsonCarriesAViewsStrides) {
  KernelSpec s = sample_spec();
  s.inputs[0] = tensor("a", Dtype::float32, {3, 4});
  s.inputs[0].strides = {1, 8};
  const KernelSpec t = spec_from_json(spec_to_json(s));
  EXPECT_EQ(t.inputs[0].strides, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(memory_elements(t.inputs[0]), 1u + 2 * 1 + 3 * 8);
  EXPECT_TRUE(t.inputs[1].strides.empty());
  EXPECT_EQ(memory_elements(t.inputs[1]), memory_elements(s.inputs[1]));
  s.inputs[0].strides = {0, 1};  // broadcast rows
  EXPECT_EQ(memory_elements(spec_from_json(spec_to_json(s)).inputs[0]), 4u);
  s.inputs[0].strides = {4, -1};
  EXPECT_THROW(spec_from_json(spec_to_json(s)), std::runtime_error);
  s.inputs[0].strides = {4};
  EXPECT_THROW(spec_from_json(spec_to_json(s)), std::runtime_error);
}

TEST(MetalsimSource, CompileErrorsMapToBodyAndHeaderLines) {
  KernelSpec s = elementwise_spec("broken");
  s.header = "inline float helper(float x) {\n  return x * undefined_in_header;\n}\n";
  s.source = "uint i = thread_position_in_grid.x;\nfloat v = a[i];\no[i] = v + undeclared_thing;\n";
  CompileResult c = compile(s, copts());
  ASSERT_FALSE(c.ok);
  bool body = false, header = false;
  for (const auto& m : c.messages) {
    if (m.file == "body" && m.line == 3 && m.severity == "error") body = true;
    if (m.file == "header" && m.line == 2 && m.severity == "error") header = true;
  }
  EXPECT_TRUE(body) << c.log;
  EXPECT_TRUE(header) << c.log;
}

// Metal gives a kernel 31 buffers ([[buffer(0)]] to [[buffer(30)]]); MLX's signature takes one per input and output
// and one per `_shape`, `_strides` and `_ndim` the source names. Past 31 the compile fails at the signature's line of
// the first parameter without a slot, naming it; 31 compile.
TEST(MetalsimSource, MoreBuffersThanMetalGivesAKernelDoNotCompile) {
  auto spec_with = [](int inputs, bool shapes) {
    KernelSpec s;
    s.name = "many";
    std::string sum = "0.0f";
    for (int k = 0; k < inputs; ++k) {
      const std::string name = "in" + std::to_string(k);
      s.inputs.push_back(tensor(name, Dtype::float32, {8}));
      sum += shapes ? " + " + name + "[elem_to_loc(i, " + name + "_shape, " + name + "_strides, " + name + "_ndim)]"
                    : " + " + name + "[i]";
    }
    s.outputs = {tensor("o", Dtype::float32, {8})};
    s.source = "uint i = thread_position_in_grid.x;\no[i] = " + sum + ";\n";
    s.grid = {8, 1, 1};
    s.threadgroup = {8, 1, 1};
    return s;
  };
  EXPECT_TRUE(compile(spec_with(30, false), copts()).ok);
  EXPECT_TRUE(compile(spec_with(7, true), copts()).ok);
  for (const auto& [spec, parameter, needed] :
       {std::tuple{spec_with(31, false), "o", 32}, std::tuple{spec_with(8, true), "in7_ndim", 33}}) {
    const CompileResult c = compile(spec, copts());
    ASSERT_FALSE(c.ok);
    ASSERT_EQ(c.messages.size(), 1u) << c.log;
    const CompileMessage& m = c.messages[0];
    EXPECT_EQ(m.file, "signature");
    EXPECT_EQ(m.severity, "error");
    const std::string line = generate_source(spec).substr(0, generate_source(spec).find(" [[buffer(31)]]"));
    EXPECT_EQ(m.line, std::count(line.begin(), line.end(), '\n') + 1);
    EXPECT_EQ(m.message.rfind("'buffer' attribute parameter is out of bounds: must be between 0 and 30 ('" +
                                  std::string(parameter) + "' would be [[buffer(31)]]): the kernel needs " +
                                  std::to_string(needed) + " buffers",
                              0),
              0u)
        << m.message;
  }
}

// The first compiles into an empty cache, in several processes at once (pytest workers calling exported modules): each
// wrote the shim's headers again while another built or used the precompiled header from them, which clang then
// refused as modified.
TEST(MetalsimSource, ProcessesCompilingIntoAnEmptyCacheAtOnceAllBuild) {
  const std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("metalsim-first-compiles-" + std::to_string(getpid()));
  std::filesystem::remove_all(cache);
  CompileOptions options = copts();
  options.cache_dir = cache;
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      KernelSpec s = elementwise_spec("first" + std::to_string(i));  // a kernel of its own each: only the shim is shared
      s.source = "uint i = thread_position_in_grid.x;\no[i] = a[i] * " + std::to_string(i + 2) + ".0f;\n";
      usleep(useconds_t(i) * 250000);  // staggered: later ones start while the first builds the shim
      _exit(compile(s, options).ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a compile failed (status " << status << ")";
  }
  std::filesystem::remove_all(cache);
}

// The same kernel compiled by several processes at once (two searches porting the same CUDA kernel): each published
// the call-graph IR under the kernel's name in the cache, and one removed it after reading while another was about to
// read it ("cannot read ...ll"). Released together from a pipe, several kernels in turn, so that the windows meet.
TEST(MetalsimSource, ProcessesCompilingTheSameKernelAtOnceAllBuild) {
  const std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("metalsim-same-compiles-" + std::to_string(getpid()));
  std::filesystem::remove_all(cache);
  CompileOptions options = copts();
  options.cache_dir = cache;
  KernelSpec s = elementwise_spec("shim_first", "uint i = thread_position_in_grid.x;\no[i] = a[i];\n");
  ASSERT_TRUE(compile(s, options).ok);  // the shim's precompiled header, built once before the race
  for (int kernel = 0; kernel < 6; ++kernel) {
    s.name = "same";
    s.source = "uint i = thread_position_in_grid.x;\no[i] = a[i] * " + std::to_string(kernel + 2) + ".0f;\n";
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 4; ++i) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(start[1]);
        char go;
        (void)!read(start[0], &go, 1);  // returns at the parent's close: all start together
        try {
          const CompileResult c = compile(s, options);
          if (!c.ok) fprintf(stderr, "%s\n", c.log.c_str());
          _exit(c.ok ? 0 : 1);
        } catch (const std::exception& e) {
          fprintf(stderr, "%s\n", e.what());
          _exit(2);
        }
      }
      children.push_back(pid);
    }
    close(start[0]);
    close(start[1]);
    for (const pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "kernel " << kernel << ": a compile failed (status " << status << ")";
    }
  }
  std::filesystem::remove_all(cache);
}

// MLX declares each input and output as a parameter of its name: one named with a Metal keyword does not compile on a
// Mac, and does not here, at its line of the signature; C++'s own keywords the host compiler refuses itself.
TEST(MetalsimSource, InputsAndOutputsNamedWithMetalKeywordsDoNotCompile) {
  KernelSpec s;
  s.name = "keyword";
  s.outputs = {tensor("o", Dtype::float32, {16})};
  for (const std::string name : {"kernel", "half", "thread", "device", "threadgroup"}) {
    s.inputs = {tensor("a", Dtype::float32, {16}), tensor(name, Dtype::float32, {16})};
    s.source = "uint i = thread_position_in_grid.x;\no[i] = a[i];\n";
    CompileResult c = compile(s, copts());
    ASSERT_FALSE(c.ok) << name;
    ASSERT_EQ(c.messages.size(), 1u) << c.log;
    EXPECT_EQ(c.messages[0].file, "signature");
    EXPECT_EQ(c.messages[0].line, 3);
    EXPECT_EQ(c.messages[0].message.rfind("'" + name + "' is a keyword in Metal: MLX declares input '" + name + "'", 0), 0u)
        << c.messages[0].message;
  }
  s.inputs = {tensor("a", Dtype::float32, {16})};
  s.outputs = {tensor("kernel", Dtype::float32, {16})};
  s.source = "uint i = thread_position_in_grid.x;\n";
  CompileResult output = compile(s, copts());
  ASSERT_FALSE(output.ok);
  EXPECT_NE(output.messages[0].message.find("MLX declares output 'kernel'"), std::string::npos) << output.log;
  s.outputs = {tensor("kernels", Dtype::float32, {16})};
  s.source = "uint i = thread_position_in_grid.x;\nkernels[i] = a[i];\n";
  EXPECT_TRUE(compile(s, copts()).ok);
}

TEST(MetalsimSource, DoubleIsRejected) {
  KernelSpec s = elementwise_spec("dbl");
  s.source = "uint i = thread_position_in_grid.x;\n\ndouble v = a[i];\no[i] = v;\n";
  CompileResult c = compile(s, copts());
  ASSERT_FALSE(c.ok);
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_EQ(c.messages[0].file, "body");
  EXPECT_EQ(c.messages[0].line, 3);
  EXPECT_NE(c.messages[0].message.find("double"), std::string::npos);
  // A comment mentioning double is fine.
  s.source = "uint i = thread_position_in_grid.x; // no double here\no[i] = a[i];\n";
  EXPECT_TRUE(compile(s, copts()).ok);
}

// Metal's standard library has no erf or expm1 (MLX's kernels define their own): calling them fails to build here as
// on a Mac, naming the body line; a kernel that defines erf itself builds. log1p is MLX's utils.h's and builds.
TEST(MetalsimSource, FunctionsMetalLacksDoNotBuild) {
  KernelSpec s = elementwise_spec("gelu");
  for (const std::string call : {"erf(v)", "expm1(v)", "metal::erf(v)", "fast::expm1(v)"}) {
    s.source = "uint i = thread_position_in_grid.x;\nfloat v = a[i];\no[i] = " + call + ";\n";
    CompileResult c = compile(s, copts());
    ASSERT_FALSE(c.ok) << call;
    const bool at_call = std::any_of(c.messages.begin(), c.messages.end(), [](const auto& m) {
      return m.file == "body" && m.line == 3 && m.severity == "error" && m.message.find("no e") != std::string::npos;
    });
    EXPECT_TRUE(at_call || call.starts_with("fast::")) << call << ": " << c.log;
  }
  s.source = "uint i = thread_position_in_grid.x;\nfloat v = a[i];\no[i] = 0.5f * v * (1.0f + erf(v * 0.70710678f)) + log1p(v * v);\n";
  s.header = "float erf(float x) { float t = 1.0f / (1.0f + 0.3275911f * fabs(x)); return copysign(1.0f - t * exp(-x * x), x); }\n";
  CompileResult own = compile(s, copts());
  EXPECT_TRUE(own.ok) << own.log;
}

// A failed static_assert quotes its condition as the kernel wrote it (the rewrite of comparisons, which Metal's bool
// vectors need, leaves static_assert's alone), with the kernel's message.
TEST(MetalsimSource, AFailedStaticAssertQuotesTheKernelsCondition) {
  KernelSpec s = elementwise_spec("static_assert_text");
  s.source = "static_assert(6 % 4 == 0, \"N must be a multiple of 4\");\nuint i = thread_position_in_grid.x;\no[i] = a[i];\n";
  const CompileResult c = compile(s, copts());
  ASSERT_FALSE(c.ok);
  ASSERT_FALSE(c.messages.empty()) << c.log;
  EXPECT_EQ(c.messages[0].file, "body");
  EXPECT_EQ(c.messages[0].line, 1);
  EXPECT_NE(c.messages[0].message.find("'6 % 4 == 0'"), std::string::npos) << c.messages[0].message;
  EXPECT_NE(c.messages[0].message.find("N must be a multiple of 4"), std::string::npos) << c.messages[0].message;
  EXPECT_EQ(c.log.find("__ms_bool"), std::string::npos) << c.log;
}
