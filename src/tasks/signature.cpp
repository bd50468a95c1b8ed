#include "tasks/signature.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

namespace ksearch::tasks {

std::string CallConvention::c_type(DType dtype) const {
  if (dtype == DType::f16) return f16_type;
  if (dtype == DType::bf16) return bf16_type;
  return std::string(dtype_c_type(dtype));
}

CallLayout call_layout(const Task& task, const std::string& backend, const CallConvention& convention) {
  CallLayout layout;
  for (const auto& name : task.entry(backend).args) {
    CallArg arg;
    arg.name = name;
    if (const TensorSpec* t = task.find_tensor(name)) {
      arg.kind = CallArg::Kind::tensor;
      arg.slot = layout.tensors++;
      arg.tensor = t;
      arg.is_output = std::any_of(task.outputs.begin(), task.outputs.end(), [&](const auto& o) { return o.name == name; });
      arg.c_type = fmt::format("{}{}*", arg.is_output ? "" : "const ", convention.c_type(t->dtype));
    } else if (task.is_axis(name)) {
      arg.kind = CallArg::Kind::integer;
      arg.slot = layout.ints++;
      arg.c_type = "int64_t";
    } else {
      const ParamSpec* p = task.find_param(name);
      const bool floating = dtype_is_float(p->dtype);
      arg.kind = floating ? CallArg::Kind::floating : CallArg::Kind::integer;
      arg.slot = floating ? layout.floats++ : layout.ints++;
      arg.c_type = convention.c_type(p->dtype);
    }
    layout.args.push_back(arg);
  }
  return layout;
}

std::string entry_prototype(const Task& task, const std::string& backend, const CallConvention& convention) {
  const auto layout = call_layout(task, backend, convention);
  std::string params;
  for (const auto& a : layout.args) params += fmt::format("{}{} {}", params.empty() ? "" : ", ", a.c_type, a.name);
  if (!convention.extra_parameter.empty()) params += (params.empty() ? "" : ", ") + convention.extra_parameter;
  return fmt::format("extern \"C\" void {}({})", task.entry(backend).function, params);
}

std::string argument_table(const Task& task, const std::string& backend, const CallConvention& convention, const std::string& prefix) {
  std::string table;
  const auto layout = call_layout(task, backend, convention);
  // An axis or parameter the entry does not take only shapes the workloads (sizes, the inputs' distributions).
  const auto not_passed = [&](const std::string& name) {
    const bool passed = std::any_of(layout.args.begin(), layout.args.end(), [&](const CallArg& a) { return a.name == name; });
    return passed ? "" : " (not passed to the kernel)";
  };
  for (const auto& a : layout.args) {
    if (a.kind != CallArg::Kind::tensor) continue;
    const DType dtype = a.tensor->dtype;
    // A 16-bit float in a uint16_t reads like an integer: the candidate must know which bits it holds.
    const bool raw_bits = (dtype == DType::f16 || dtype == DType::bf16) && convention.c_type(dtype) == "uint16_t";
    table += fmt::format("{}{:<8} {}[{}] {}{}{}{}\n", prefix, a.name, dtype_name(dtype), fmt::join(a.tensor->shape, ", "),
                         a.is_output ? "output" : "input", a.tensor->optional ? ", optional (may be null)" : "",
                         !raw_bits ? "" : dtype == DType::f16 ? ", IEEE binary16 bits in uint16_t" : ", bfloat16 bits (a float's upper half) in uint16_t",
                         a.tensor->description.empty() ? "" : ": " + a.tensor->description);
  }
  for (const auto& [name, description] : task.axes)
    table += fmt::format("{}{:<8} size{}{}\n", prefix, name, not_passed(name), description.empty() ? "" : ": " + description);
  for (const auto& p : task.params)
    table += fmt::format("{}{:<8} {} parameter, default {:g}{}{}\n", prefix, p.name, dtype_name(p.dtype), p.default_value,
                         not_passed(p.name), p.description.empty() ? "" : ": " + p.description);
  for (const auto& c : task.constraints) table += fmt::format("{}every call has {} ({})\n", prefix, c.says, c.check);
  return table;
}

std::string argument_comment(const Task& task, const std::string& backend, const CallConvention& convention) {
  return "// Arguments (declared shapes over the axes, row-major):\n" + argument_table(task, backend, convention, "//   ");
}

std::string entry_file(const Task& task, const std::string& backend, const std::string& candidate_file,
                       const CallConvention& convention) {
  const auto layout = call_layout(task, backend, convention);
  std::string call_args;
  for (const auto& a : layout.args) {
    std::string value;
    switch (a.kind) {
      case CallArg::Kind::tensor: value = fmt::format("({})ptrs[{}]", a.c_type, a.slot); break;
      case CallArg::Kind::integer: value = fmt::format("({})ints[{}]", a.c_type, a.slot); break;
      case CallArg::Kind::floating: value = fmt::format("({})floats[{}]", a.c_type, a.slot); break;
    }
    call_args += (call_args.empty() ? "" : ", ") + value;
  }
  if (!convention.extra_argument.empty()) call_args += (call_args.empty() ? "" : ", ") + convention.extra_argument;
  // The entry is called as the candidate declared it, not through a prototype of the shim's, so that a pointer parameter
  // may leave out (or add) const, as much real code does (an input it changes is caught after the call anyway), and an
  // integer may be declared narrower or wider (`int n` for an int64_t axis), its value checked to fit at the call (a
  // value that does not ends the call with a message on stderr and a trap: no silent truncation); any other
  // difference from the task's signature stops the build with the static assertions' messages.
  const std::string function = task.entry(backend).function;
  const std::string shim = fmt::format(
      "// The task's signature: {};\n"
      "namespace ksearch_shim {{\n"
      "template <class Declared, class Given> Declared argument(Given value) {{\n"
      "  constexpr bool integers = std::is_integral_v<Declared> && std::is_integral_v<Given>;\n"
      "  static_assert(std::is_same_v<Declared, Given> || integers || (std::is_pointer_v<Declared> && std::is_pointer_v<Given> &&\n"
      "                std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Declared>>, std::remove_cv_t<std::remove_pointer_t<Given>>>),\n"
      "                \"ksearch: a parameter of the entry has another type than the task's signature (only const on what a pointer \"\n"
      "                \"points to, and the width of an integer, may differ)\");\n"
      "  if constexpr (std::is_pointer_v<Declared>) {{\n"
      "    return const_cast<Declared>(value);\n"
      "  }} else if constexpr (integers && !std::is_same_v<Declared, Given>) {{\n"
      "    const Declared narrowed = static_cast<Declared>(value);\n"
      "    if (static_cast<Given>(narrowed) != value || (narrowed < Declared{{}}) != (value < Given{{}})) {{\n"
      "      fprintf(stderr, \"ksearch: the entry's integer parameter cannot hold the value %lld (declare it as the task's \"\n"
      "              \"signature does)\\n\", (long long)value);\n"
      "      __builtin_trap();\n"
      "    }}\n"
      "    return narrowed;\n"
      "  }} else {{\n"
      "    return value;\n"
      "  }}\n"
      "}}\n"
      "template <class... Declared, class... Given> void call(void (*entry)(Declared...), Given... values) {{\n"
      "  static_assert(sizeof...(Declared) == sizeof...(Given), \"ksearch: the entry takes another number of parameters than the \"\n"
      "                \"task's signature\");\n"
      "  if constexpr (sizeof...(Declared) == sizeof...(Given)) entry(argument<Declared>(values)...);\n"
      "}}\n"
      "}}  // namespace ksearch_shim\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) void ksearch_entry(void* const* ptrs, const int64_t* ints, "
      "const double* floats, void* stream) {{\n  (void)ptrs; (void)ints; (void)floats; (void)stream;\n  ksearch_shim::call({}{});\n}}\n",
      entry_prototype(task, backend, convention), function, call_args.empty() ? "" : ", " + call_args);
  // The candidate's macros stop at its end: one named like a word of the shim (`#define ksearch_entry(...) dead(...)`,
  // `#define static_assert(...)`) would rewrite the shim, its entry point or its checks. The entry function's name
  // stays: a candidate may define it through a macro, and the shim calls what the candidate defined. The headers
  // the shim needs come before the candidate, so its macros cannot rewrite them either.
  // (Its words outside string literals and comments, which hold `and`, a name no macro may have.)
  const std::string code = std::regex_replace(shim, std::regex(R"("(?:[^"\\]|\\.)*"|//[^\n]*)"), " ");
  std::set<std::string> words;
  const std::regex word(R"([A-Za-z_]\w*)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), word); it != std::sregex_iterator(); ++it)
    if (it->str() != function) words.insert(it->str());
  std::string undefs;
  for (const auto& w : words) undefs += "#undef " + w + "\n";
  return "// Generated by ksearch: unpacks the evaluator's arguments into the task's entry signature.\n"
         "#include <stdint.h>\n#include <stdio.h>\n#include <type_traits>\n" +
         convention.shim_headers + "#include \"" + candidate_file + "\"\n" + undefs + shim;
}

void scalar_arguments(const Task& task, const CallLayout& layout, const Workload& workload,
                      std::vector<int64_t>& ints, std::vector<double>& floats) {
  const auto values = task.bindings(workload);
  ints.assign(size_t(layout.ints), 0);
  floats.assign(size_t(layout.floats), 0);
  for (const auto& a : layout.args) {
    if (a.kind == CallArg::Kind::integer) ints[size_t(a.slot)] = std::llround(values.at(a.name));
    if (a.kind == CallArg::Kind::floating) floats[size_t(a.slot)] = values.at(a.name);
  }
}

}  // namespace ksearch::tasks
