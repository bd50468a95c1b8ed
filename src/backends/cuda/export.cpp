// `ksearch export` for cuda: a standalone .cu with the task's C entry point, plus a PyTorch
// extension that checks its tensors and calls the entry point on PyTorch's current stream.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cuda/cuda_tools.hpp"
#include "tasks/signature.hpp"

using ksearch::tasks::CallArg;
using ksearch::tasks::CallConvention;
using ksearch::tasks::CallLayout;
using ksearch::tasks::EntrySpec;
using ksearch::tasks::Task;
using ksearch::tasks::call_layout;
using ksearch::tasks::entry_prototype;

namespace ksearch::cuda {

namespace {

std::string torch_dtype(DType d) {
  switch (d) {
    case DType::f32: return "torch::kFloat32";
    case DType::f64: return "torch::kFloat64";
    case DType::f16: return "torch::kFloat16";
    case DType::bf16: return "torch::kBFloat16";
    case DType::i32: return "torch::kInt32";
    case DType::i64: return "torch::kInt64";
    case DType::u8: return "torch::kUInt8";
    case DType::boolean: return "torch::kBool";
  }
  return "torch::kFloat32";
}

}  // namespace

CallConvention call_convention() {
  CallConvention c;
  c.f16_type = "__half";
  c.bf16_type = "__nv_bfloat16";
  c.extra_parameter = "cudaStream_t stream";
  c.extra_argument = "(cudaStream_t)stream";
  c.shim_headers = "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  return c;
}

std::vector<std::pair<std::string, std::string>> cuda_export_bundle(const Task& task, const std::string& source) {
  const EntrySpec& entry = task.entry("cuda");
  const CallLayout layout = call_layout(task, "cuda", call_convention());
  const std::string prototype = entry_prototype(task, "cuda", call_convention());

  const std::string language_flags = fmt::format("{}", fmt::join(nvcc_language_flags(), " "));
  std::string kernel = fmt::format(
      "// {} for CUDA, exported by ksearch.\n// Entry point (device pointers, launches on `stream`):\n//   {};\n"
      "// Build: nvcc -O3 {} -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -shared {}.cu -o lib{}.so -lcuda\n"
      "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <stdint.h>\n\n{}\n",
      task.name, prototype, language_flags, task.name, task.name, source);

  // The extension takes the entry's arguments in order: tensors (outputs preallocated by the
  // caller), then sizes and parameters as Python numbers.
  std::string params, checks, call;
  for (const auto& a : layout.args) {
    const std::string sep = params.empty() ? "" : ", ";
    if (a.kind == CallArg::Kind::tensor) {
      const bool optional = a.tensor->optional;
      params += sep + (optional ? "c10::optional<torch::Tensor> " : "torch::Tensor ") + a.name;
      const std::string t = optional ? a.name + ".value()" : a.name;
      const std::string body = fmt::format(
          "TORCH_CHECK({0}.is_cuda() && {0}.is_contiguous() && {0}.scalar_type() == {1}, \"{2} must be a contiguous "
          "CUDA tensor of dtype {1}\");",
          t, torch_dtype(a.tensor->dtype), a.name);
      checks += optional ? fmt::format("  if ({}.has_value()) {}\n", a.name, body) : "  " + body + "\n";
      call += fmt::format("{}reinterpret_cast<{}>({}{}.data_ptr(){})", call.empty() ? "" : ", ", a.c_type,
                          optional ? a.name + ".has_value() ? " : "", t, optional ? " : nullptr" : "");
    } else {
      params += sep + (a.kind == CallArg::Kind::floating ? "double " : "int64_t ") + a.name;
      call += fmt::format("{}({}){}", call.empty() ? "" : ", ", a.c_type, a.name);
    }
  }
  std::string wrapper = fmt::format(
      "// PyTorch binding of {0}.cu, exported by ksearch.\n"
      "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n#include <cuda_runtime.h>\n"
      "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n{1};\n\n"
      "void {2}_torch({3}) {{\n{4}"
      "  {2}({5}{6}at::cuda::getCurrentCUDAStream().stream());\n"
      "  C10_CUDA_KERNEL_LAUNCH_CHECK();\n}}\n\n"
      "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{ m.def(\"{2}\", &{2}_torch, \"{7}\"); }}\n",
      task.name, prototype, entry.function, params, checks, call, call.empty() ? "" : ", ",
      "ksearch kernel; arguments as in the C entry point, outputs preallocated");

  // PyTorch compiles CUDA sources with the implicit half/bf16 conversions switched off; the kernel
  // was built and verified by ksearch with them on, so the extension switches them back on.
  std::string nvcc_flags =
      "'-O3', '-gencode=arch=compute_90a,code=sm_90a', '-U__CUDA_NO_HALF_OPERATORS__', '-U__CUDA_NO_HALF_CONVERSIONS__', "
      "'-U__CUDA_NO_HALF2_OPERATORS__', '-U__CUDA_NO_BFLOAT16_CONVERSIONS__'";
  for (const std::string& flag : nvcc_language_flags()) nvcc_flags += ", '" + flag + "'";
  std::string setup = fmt::format(
      "# Builds the PyTorch extension: pip install . (or python setup.py build_ext --inplace)\n"
      "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
      "setup(name='{0}_ksearch', ext_modules=[CUDAExtension('{0}_ksearch', ['{0}.cu', '{0}_torch.cpp'],\n"
      "      extra_compile_args={{'nvcc': [{1}]}}, libraries=['cuda'])],\n"
      "      cmdclass={{'build_ext': BuildExtension}})\n",
      task.name, nvcc_flags);

  std::string readme = fmt::format(
      "# {0} (CUDA, exported by ksearch)\n\n{1}\n\nC entry point (device pointers; every kernel is launched on `stream`):\n\n"
      "```c\n{2};\n```\n\n- Shared library: `nvcc -O3 {5} -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -shared {0}.cu "
      "-o lib{0}.so -lcuda` (use your GPU's architecture elsewhere; the driver library is for TMA tensor maps).\n"
      "- PyTorch: `pip install .`, then `import torch, {0}_ksearch; {0}_ksearch.{3}(...)` with the same arguments "
      "(outputs preallocated, contiguous CUDA tensors); it runs on the current stream.\n"
      "- Or JIT: `torch.utils.cpp_extension.load('{0}_ksearch', ['{0}.cu', '{0}_torch.cpp'], extra_cuda_cflags=[{4}], "
      "extra_ldflags=['-lcuda'])`.\n",
      task.name, task.description, prototype, entry.function, nvcc_flags, language_flags);

  return {{task.name + ".cu", kernel}, {task.name + "_torch.cpp", wrapper}, {"setup.py", setup}, {"README.md", readme}};
}

}  // namespace ksearch::cuda
