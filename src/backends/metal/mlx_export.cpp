#include "backends/metal/mlx_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>
#include <nlohmann/json.hpp>

#include "backends/metal/candidate.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "tasks/expr.hpp"
#include "tasks/signature.hpp"
#include "core/json_text.hpp"

using ksearch::tasks::Constraint;
using ksearch::tasks::CallArg;
using ksearch::tasks::CallLayout;
using ksearch::tasks::ParamSpec;
using ksearch::tasks::Task;
using ksearch::tasks::TensorSpec;
using ksearch::tasks::call_layout;

namespace ksearch::metal {

extern const char* const kMlxModuleTemplate;
extern const char* const kMlxKernelTemplate;
extern const char* const kMlxLmPatchTemplate;
extern const char* const kMlxExpressionHelpers;

namespace {

// A float as Python source giving the same double (shortest round-trip digits; inf and nan by name).
std::string python_float(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  return fmt::format("{}", value);
}

// Recursive descent over the expression grammar of tasks/expr.hpp, writing Python.
class PythonExpression {
 public:
  explicit PythonExpression(const std::string& text) : text_(text) {}

  std::string translate() {
    std::string out = ternary();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_) + "'");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error("cannot translate expression '" + text_ + "' to Python: " + why);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(const std::string& op) {
    skip_space();
    if (text_.compare(pos_, op.size(), op) != 0) return false;
    pos_ += op.size();
    return true;
  }
  void expect(const std::string& op) {
    if (!accept(op)) fail("expected '" + op + "'");
  }

  std::string ternary() {
    std::string condition = either();
    if (!accept("?")) return condition;
    std::string yes = ternary();
    expect(":");
    std::string no = ternary();
    return "(" + yes + " if " + condition + " else " + no + ")";
  }
  // muparser's && and || give 1 or 0, where Python's `and`/`or` give an operand.
  std::string either() {
    std::string out = both();
    while (accept("||")) out = "int(bool(" + out + ") or bool(" + both() + "))";
    return out;
  }
  std::string both() {
    std::string out = comparison();
    while (accept("&&")) out = "int(bool(" + out + ") and bool(" + comparison() + "))";
    return out;
  }
  std::string comparison() {
    std::string out = sum();
    for (;;) {
      std::string op;
      for (const char* candidate : {"==", "!=", "<=", ">=", "<", ">"})
        if (accept(candidate)) {
          op = candidate;
          break;
        }
      if (op.empty()) return out;
      out = "(" + out + " " + op + " " + sum() + ")";
    }
  }
  std::string sum() {
    std::string out = product();
    for (;;) {
      if (accept("+")) out = "(" + out + " + " + product() + ")";
      else if (accept("-")) out = "(" + out + " - " + product() + ")";
      else return out;
    }
  }
  std::string product() {
    std::string out = unary();
    for (;;) {
      if (accept("*")) out = "(" + out + " * " + unary() + ")";
      else if (accept("/")) out = quotient(out, unary());
      else return out;
    }
  }
  // Division by a size may meet a zero one: _divide gives the parser's inf or nan where Python would raise.
  static std::string quotient(const std::string& numerator, const std::string& denominator) {
    char* end = nullptr;
    const double literal = std::strtod(denominator.c_str(), &end);
    if (!denominator.empty() && *end == '\0' && literal != 0) return "(" + numerator + " / " + denominator + ")";
    return "_divide(" + numerator + ", " + denominator + ")";
  }
  std::string unary() {
    if (accept("-")) return "(-" + unary() + ")";
    if (accept("+")) return unary();
    std::string base = primary();
    if (accept("^")) return "(" + base + " ** " + unary() + ")";
    return base;
  }
  std::string primary() {
    skip_space();
    if (accept("(")) {
      std::string inner = ternary();
      expect(")");
      return "(" + inner + ")";
    }
    const size_t start = pos_;
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                     ((text_[pos_] == '-' || text_[pos_] == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))))
        ++pos_;
      return text_.substr(start, pos_ - start);
    }
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (pos_ == start) fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_) + "'" : "unexpected end");
    const std::string name = text_.substr(start, pos_ - start);
    if (!accept("(")) {
      // The expressions' constants (_pi, _e, _inf) as the exact values they have.
      if (tasks::is_expression_constant(name)) return python_float(tasks::evaluate_expression(name, {}));
      return name;
    }
    std::vector<std::string> args{ternary()};
    while (accept(",")) args.push_back(ternary());
    expect(")");
    return call(name, args);
  }

  // muparser's built-in functions and the floor, ceil, bitwise, bit-count and pick functions tasks/expr.cpp adds, each as the Python that gives the same
  // value: rint rounds halves up (floor(x + 0.5)), sign gives -1, 0 or 1, sum and avg take any number of arguments;
  // floor and ceil keep an infinite or NaN value (_floor, _ceil), where math's raise.
  std::string call(const std::string& name, const std::vector<std::string>& args) {
    const std::string joined = fmt::format("{}", fmt::join(args, ", "));
    auto arity = [&](size_t n) {
      if (args.size() != n) fail(fmt::format("{}() takes {} argument{}, got {}", name, n, n == 1 ? "" : "s", args.size()));
    };
    if (name == "min" || name == "max") return name + "(" + joined + ")";
    if (name == "sum") return "(" + fmt::format("{}", fmt::join(args, " + ")) + ")";
    if (name == "avg") return fmt::format("(({}) / {})", fmt::join(args, " + "), args.size());
    if (name == "rint") return arity(1), "_floor(" + args[0] + " + 0.5)";
    if (name == "floor" || name == "ceil") return arity(1), "_" + name + "(" + args[0] + ")";
    if (name == "abs") return arity(1), "abs(" + args[0] + ")";
    if (name == "sign") return arity(1), "((" + args[0] + " > 0) - (" + args[0] + " < 0))";
    if (name == "ln") return arity(1), "math.log(" + args[0] + ")";
    static const std::set<std::string> one_argument = {"sin",   "cos",   "tan",   "asin", "acos", "atan",
                                                      "sinh",  "cosh",  "tanh",  "asinh", "acosh", "atanh",
                                                      "log2",  "log10", "log",   "exp",  "sqrt"};
    if (one_argument.count(name)) return arity(1), "math." + name + "(" + args[0] + ")";
    if (name == "atan2") return arity(2), "math.atan2(" + joined + ")";
    if (name == "bitand" || name == "bitor" || name == "bitxor") return arity(2), "_" + name + "(" + joined + ")";
    static const std::set<std::string> bit_counts = {"clz32", "clz64", "ctz32", "ctz64", "popcount32", "popcount64"};
    if (bit_counts.count(name)) return arity(1), "_" + name + "(" + args[0] + ")";
    if (name == "pick") {
      if (args.size() < 2) fail("pick() takes an index and at least one value");
      return "_pick(" + joined + ")";
    }
    fail("function '" + name + "' is not supported");
  }

  const std::string& text_;
  size_t pos_ = 0;
};

std::string mx_dtype(DType d, const std::string& what) {
  switch (d) {
    case DType::f32: return "mx.float32";
    case DType::f16: return "mx.float16";
    case DType::bf16: return "mx.bfloat16";
    case DType::i32: return "mx.int32";
    case DType::i64: return "mx.int64";
    case DType::u8: return "mx.uint8";
    case DType::boolean: return "mx.bool_";
    case DType::f64: break;
  }
  throw Error(what + " is float64, which Metal kernels cannot use");
}

// A Python string literal: raw and triple-quoted where that is exact (readable kernel code), else JSON's.
std::string python_string(const std::string& text) {
  if (text.empty()) return "\"\"";
  if (text.find("'''") == std::string::npos && text.back() != '\\')
    return "r'''" + text + "'''";
  return json_text(nlohmann::json(text));
}

std::string python_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + json_text(nlohmann::json(s));
  return "[" + out + "]";
}

std::string replace_all(std::string text, const std::string& key, const std::string& value) {
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + value.size()))
    text.replace(pos, key.size(), value);
  return text;
}

std::string doc_text(std::string text);

// A directive or shape expression checked by `check` (_int or _launch of the module) as Python: its value, what it is,
// and where it is more than a name or a number, its text and the sizes it reads, which the module's error names
// (`grid x = d / g = 2.67 for d = 8, g = 3`; `axis` is the dimension's letter there).
std::string checked(const char* check, const std::string& expression, const std::string& what, const std::string& axis = "") {
  const std::set<std::string> names = tasks::expression_names(expression);
  const size_t first = expression.find_first_not_of(" \t"), last = expression.find_last_not_of(" \t");
  const std::string trimmed = first == std::string::npos ? "" : expression.substr(first, last - first + 1);
  char* number_end = nullptr;
  std::strtod(trimmed.c_str(), &number_end);
  const bool compound = !(names.size() == 1 && trimmed == *names.begin()) && !(!trimmed.empty() && *number_end == '\0');
  if (!compound) return fmt::format("{}({}, \"{}\")", check, python_expression(expression), what);
  std::string sizes;
  for (const auto& name : names) sizes += (sizes.empty() ? "" : ", ") + fmt::format("{0}={0}", name);
  return fmt::format("{}({}, \"{}{} = {}\", dict({}))", check, python_expression(expression), what, axis, doc_text(expression),
                     sizes);
}

// A shape as a Python tuple of ints.
std::string shape_tuple(const std::vector<std::string>& shape, const std::string& what) {
  std::string out;
  for (const auto& d : shape) out += (out.empty() ? "" : ", ") + checked("_int", d, what + " shape");
  return "(" + out + (shape.size() == 1 ? ",)" : ")");
}
std::string shape_tuple(const TensorSpec& t, const std::string& what) { return shape_tuple(t.shape, what); }

// A shape as text, for messages and the docstring: "(rows, cols)".
std::string shape_text(const std::vector<std::string>& shape) {
  return "(" + fmt::format("{}", fmt::join(shape, ", ")) + (shape.size() == 1 ? ",)" : ")");
}

// One combination of the inputs' shapes that the task's workloads use (selective_scan's B and C as (b, g, n, l), or
// as (d, n) with bc_layout = 0), told apart by the ranks of the inputs whose shapes differ between combinations.
struct InputLayout {
  std::map<std::string, std::vector<std::string>> shapes;  // every input's shape in this layout
  std::map<std::string, double> fixed;  // axes no input shape gives here, and params: their one value in its workloads
  std::vector<std::map<std::string, double>> bindings;  // of its workloads: axes and params
};

// The task's input layouts; one (the declared shapes) where its workloads override no input's shape, or where the
// layouts cannot be told apart by rank, or an axis no shape gives takes several values in a layout.
std::vector<InputLayout> input_layouts(const Task& task, const std::vector<const CallArg*>& inputs) {
  InputLayout declared;
  for (const CallArg* a : inputs) declared.shapes[a->name] = a->tensor->shape;
  std::vector<InputLayout> layouts;
  for (const auto& w : task.workloads) {
    InputLayout l = declared;
    for (const auto& [name, shape] : w.shapes)
      if (l.shapes.count(name)) l.shapes[name] = shape;
    auto same = std::find_if(layouts.begin(), layouts.end(), [&](const InputLayout& o) { return o.shapes == l.shapes; });
    if (same == layouts.end()) same = layouts.insert(layouts.end(), l);
    same->bindings.push_back(task.bindings(w));
  }
  if (layouts.size() < 2) return {declared};
  std::set<std::vector<size_t>> ranks;
  for (const InputLayout& l : layouts) {
    std::vector<size_t> r;
    for (const auto& [name, shape] : l.shapes) r.push_back(shape.size());
    ranks.insert(r);
  }
  if (ranks.size() != layouts.size()) return {declared};
  const auto gives = [&](const InputLayout& l, const std::string& axis) {
    return std::any_of(inputs.begin(), inputs.end(), [&](const CallArg* a) {
      const auto& shape = l.shapes.at(a->name);
      return !a->tensor->optional && std::find(shape.begin(), shape.end(), axis) != shape.end();
    });
  };
  for (InputLayout& l : layouts) {
    auto one_value = [&](const std::string& name, double& value) {
      std::set<double> values;
      for (const auto& b : l.bindings) values.insert(b.at(name));
      value = *values.begin();
      return values.size() == 1;
    };
    // An axis another layout reads from a shape but this one cannot (g with B as (d, n)) is its workloads' value.
    for (const auto& [axis, _] : task.axes) {
      const bool elsewhere = std::any_of(layouts.begin(), layouts.end(), [&](const InputLayout& o) { return gives(o, axis); });
      double value = 0;
      if (gives(l, axis) || !elsewhere) continue;
      if (!one_value(axis, value)) return {declared};
      l.fixed[axis] = value;
    }
    for (const auto& p : task.params)
      if (double value = 0; one_value(p.name, value)) l.fixed[p.name] = value;
  }
  return layouts;
}

// The buffers each kernel of a program reads and writes, by name (as program_for_workload orders them).
struct KernelBuffers {
  std::vector<std::string> inputs, outputs;
};
std::vector<KernelBuffers> kernel_buffers(const Task& task, const Program& program) {
  const CallLayout layout = call_layout(task, "metal");
  std::vector<std::string> task_inputs, task_outputs, written;
  for (const auto& a : layout.args) (a.is_output ? task_outputs : task_inputs).push_back(a.name);
  std::vector<KernelBuffers> out;
  for (const Candidate& k : program.kernels) {
    KernelBuffers b{task_inputs, program.multi_kernel() ? k.outputs : task_outputs};
    b.inputs.insert(b.inputs.end(), written.begin(), written.end());
    written.insert(written.end(), b.outputs.begin(), b.outputs.end());
    out.push_back(b);
  }
  return out;
}

// The Python suffix of a kernel's names in the module: none for a single kernel.
std::string kernel_suffix(const Program& program, const Candidate& k) { return program.multi_kernel() ? "_" + k.name : ""; }

// MLX caches a kernel's Metal library by its name (with the template values) and rebuilds it whenever that name comes
// with another source: two exported modules of one function (two runs of a task, attention and attention_bf16) in
// one process would recompile at every alternate call (older MLX reused the first library). The name carries a hash
// of what makes that source: the kernel's text and buffers, and the call (the dtypes it converts the inputs to).
std::string kernel_name(const std::string& base, const Candidate& k, const KernelBuffers& buffers, const std::string& call) {
  const std::string made_of =
      nlohmann::json{k.header, k.body, buffers.inputs, buffers.outputs, k.atomic_outputs, call}.dump();
  return base + "_" + sha256_hex(made_of).substr(0, 8);
}

// Text from the task file on one line of the docstring (no quotes or backslashes that would end or escape it).
std::string doc_text(std::string text) {
  text = replace_all(text, "\\", "/");
  text = replace_all(text, "\"\"\"", "'''");
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The declared shape of a tensor as text, for messages and the docstring: "(rows, cols)".
std::string declared_shape(const TensorSpec& t) { return shape_text(t.shape); }

// The names the module's kernel calls read: the kernels' arguments and what the task's constraints, the inputs' and
// outputs' shapes, the scratch buffers and the kernels' directives compute from. A task parameter outside them only
// draws the workloads' inputs (softmax's shift, attention's q_std) and is no argument of the function.
std::set<std::string> names_the_calls_read(const Task& task, const Program& program, const std::vector<InputLayout>& layouts) {
  std::set<std::string> names;
  auto read = [&](const std::string& expression) {
    const std::set<std::string> found = tasks::expression_names(expression);
    names.insert(found.begin(), found.end());
  };
  for (const auto& a : call_layout(task, "metal").args) {
    names.insert(a.name);
    if (a.is_output)
      for (const auto& d : a.tensor->shape) read(d);
  }
  for (const InputLayout& l : layouts)
    for (const auto& [_, shape] : l.shapes)
      for (const auto& d : shape) read(d);
  for (const Constraint& c : task.constraints) read(c.check);
  for (const auto& b : program.scratch)
    for (const auto& d : b.shape) read(d);
  for (const Candidate& k : program.kernels) {
    for (const auto& d : k.grid) read(d);
    for (const auto& d : k.threadgroup) read(d);
    for (const auto& t : k.templates) read(t.value);
    if (k.init_value) read(*k.init_value);
  }
  return names;
}

// A task parameter's default as Python.
std::string python_default(const ParamSpec& p) {
  if (p.dtype == DType::boolean) return p.default_value != 0 ? "True" : "False";
  if (p.dtype == DType::f32 || p.dtype == DType::f64) {
    std::string text = python_float(p.default_value);
    return text.find_first_of(".en(") == std::string::npos ? text + ".0" : text;
  }
  return fmt::format("{}", int64_t(p.default_value));
}

// The function that makes the MLX calls, in the task's argument order. Its checks come before any size is
// read or kernel launched: each tensor's rank (then its shape and dtype, converted), each scalar's kind, and every
// launch dimension and int32 scalar in the range a Metal launch takes; where every output is empty, nothing runs.
std::string call_function(const Task& task, const Program& program) {
  const CallLayout layout = call_layout(task, "metal");
  const std::string function = task.entry("metal").function;
  std::vector<const CallArg*> inputs, outputs;
  for (const auto& a : layout.args)
    if (a.kind == CallArg::Kind::tensor) (a.is_output ? outputs : inputs).push_back(&a);

  const std::vector<InputLayout> layouts = input_layouts(task, inputs);
  // The inputs whose shapes differ between layouts (their ranks tell the layout), and the params every layout fixes to
  // values that differ between layouts (bc_layout): their keyword defaults to None, the layout's value.
  std::vector<std::string> differing;
  for (const CallArg* a : inputs)
    if (std::any_of(layouts.begin(), layouts.end(), [&](const InputLayout& l) { return l.shapes.at(a->name) != layouts[0].shapes.at(a->name); }))
      differing.push_back(a->name);
  const std::set<std::string> read = names_the_calls_read(task, program, layouts);
  std::set<std::string> layout_params;
  for (const auto& p : task.params) {
    if (!read.count(p.name)) continue;
    std::set<double> values;
    bool everywhere = layouts.size() > 1;
    for (const InputLayout& l : layouts) {
      const auto it = l.fixed.find(p.name);
      if (it == l.fixed.end()) everywhere = false;
      else values.insert(it->second);
    }
    if (everywhere && values.size() > 1) layout_params.insert(p.name);
  }

  // Axes come from the first required input whose shape names them as a whole dimension, or, where another layout's
  // shapes give them and this one's do not, from the layout; others are keyword arguments.
  auto reads_axis = [&](const InputLayout& l, const std::string& axis) -> std::string {
    for (const CallArg* a : inputs) {
      const auto& shape = l.shapes.at(a->name);
      for (size_t k = 0; k < shape.size() && !a->tensor->optional; ++k)
        if (shape[k] == axis) return fmt::format("{}.shape[{}]", a->name, k);
    }
    const auto it = l.fixed.find(axis);
    return it == l.fixed.end() ? "" : fmt::format("{}", int64_t(it->second));
  };
  std::string keywords, scalars, documented_keywords;
  for (const auto& [axis, description] : task.axes) {
    if (!reads_axis(layouts[0], axis).empty()) continue;
    keywords += ", " + axis;
    scalars += fmt::format("    {0} = _scalar({0}, \"{0}\", int)\n", axis);
    documented_keywords += fmt::format("        {}: int, {}\n", axis, doc_text(description));
  }
  // A param the kernel takes keeps what was given (`<name>_given`): an mx array reaches the kernel as itself, so that
  // mx.grad through it raises as through the kernel's other inputs instead of giving a zero gradient.
  auto given = [&](const std::string& name) {
    return std::any_of(layout.args.begin(), layout.args.end(),
                       [&](const CallArg& a) { return a.kind != CallArg::Kind::tensor && a.name == name; })
               ? fmt::format("{0}_given, {0} = {0}, ", name)
               : fmt::format("{} = ", name);
  };
  for (const auto& p : task.params) {
    if (!read.count(p.name)) continue;
    const char* kind = p.dtype == DType::boolean ? "bool" : (p.dtype == DType::f32 || p.dtype == DType::f64) ? "float" : "int";
    if (layout_params.count(p.name)) {
      keywords += fmt::format(", {}=None", p.name);
      scalars += fmt::format("    {2}None if {0} is None else _scalar({0}, \"{0}\", {1})\n", p.name, kind, given(p.name));
      documented_keywords += fmt::format("        {}: {} (default: the value the inputs' shapes go with){}{}\n", p.name, kind,
                                         p.description.empty() ? "" : ", ", doc_text(p.description));
      continue;
    }
    keywords += fmt::format(", {}={}", p.name, python_default(p));
    scalars += fmt::format("    {2}_scalar({0}, \"{0}\", {1})\n", p.name, kind, given(p.name));
    documented_keywords += fmt::format("        {}: {} (default {}){}{}\n", p.name, kind, python_default(p),
                                       p.description.empty() ? "" : ", ", doc_text(p.description));
  }
  for (const CallArg* a : outputs)
    if (a->tensor->optional) {
      keywords += ", with_" + a->name + "=False";
      documented_keywords += fmt::format("        with_{0}: bool (default False), whether to compute {0}\n", a->name);
    }

  // Each layout's shapes in words ("B (d, n), C (d, n)"), for the docstring and the error that names none.
  auto layout_text = [&](const InputLayout& l) {
    std::string text;
    for (const auto& name : differing) text += fmt::format("{}{} {}", text.empty() ? "" : ", ", name, shape_text(l.shapes.at(name)));
    return text;
  };
  std::string params, conversions, documented_inputs;
  bool after_optional = false;
  for (const CallArg* a : inputs) {
    after_optional = after_optional || a->tensor->optional;
    params += (params.empty() ? "" : ", ") + a->name + (after_optional ? "=None" : "");
    const std::string dtype = mx_dtype(a->tensor->dtype, a->name);
    std::set<size_t> ranks;
    std::vector<std::string> shapes;
    for (const InputLayout& l : layouts)
      if (ranks.insert(l.shapes.at(a->name).size()).second) shapes.push_back(shape_text(l.shapes.at(a->name)));
    const std::string convert = fmt::format("_tensor({0}, \"{0}\", ({1},), \"{2}\", {3})", a->name, fmt::join(ranks, ", "),
                                            fmt::join(shapes, " or "), dtype);
    documented_inputs += fmt::format("        {}: {} {}{}{}\n", a->name, dtype.substr(3), fmt::join(shapes, " or "),
                                     a->tensor->optional ? ", optional" : "",
                                     a->tensor->description.empty() ? "" : ", " + doc_text(a->tensor->description));
    if (a->tensor->optional) {
      conversions += fmt::format("    has_{0} = {0} is not None\n    {0} = {1} if has_{0} else None\n", a->name, convert);
    } else {
      if (after_optional) conversions += fmt::format("    if {0} is None:\n        raise TypeError(\"{1}: {0} is required\")\n", a->name, function);
      conversions += fmt::format("    {0} = {1}\n", a->name, convert);
    }
  }
  // Per layout (one branch where there are several, chosen by the differing inputs' ranks): the sizes, the layout's
  // params, then each input's shape and dtype.
  std::string sizes_and_checks;
  for (size_t i = 0; i < layouts.size(); ++i) {
    const InputLayout& l = layouts[i];
    const std::string indent = layouts.size() > 1 ? "        " : "    ";
    std::string block;
    for (const auto& [axis, _] : task.axes)
      if (const std::string from = reads_axis(l, axis); !from.empty()) block += fmt::format("{}{} = {}\n", indent, axis, from);
    for (const auto& name : layout_params) {
      const std::string value = python_float(l.fixed.at(name));
      block += fmt::format("{0}{1} = {2} if {1} is None else {1}\n{0}_require({1} == {2}, \"{1} = {2} with {3}\", dict({1}={1}))\n",
                           indent, name, value, doc_text(layout_text(l)));
    }
    for (const CallArg* a : inputs) {
      const std::string dtype = mx_dtype(a->tensor->dtype, a->name);
      const std::string shape = shape_tuple(l.shapes.at(a->name), a->name);
      if (a->tensor->optional)
        block += fmt::format("{0}{1} = _array({1}, \"{1}\", {2}, {3}) if has_{1} else mx.zeros((0,), {2})\n", indent, a->name, dtype, shape);
      else
        block += fmt::format("{0}{1} = _array({1}, \"{1}\", {2}, {3})\n", indent, a->name, dtype, shape);
    }
    if (layouts.size() == 1) {
      sizes_and_checks = block;
      break;
    }
    std::string ranks, expected;
    for (const auto& name : differing) {
      ranks += fmt::format("{}{}.ndim", ranks.empty() ? "" : ", ", name);
      expected += fmt::format("{}{}", expected.empty() ? "" : ", ", l.shapes.at(name).size());
    }
    sizes_and_checks += fmt::format("    {}if ({},) == ({},):\n{}", i ? "el" : "", ranks, expected, block);
  }
  if (layouts.size() > 1) {
    std::vector<std::string> texts;
    for (const InputLayout& l : layouts) texts.push_back(layout_text(l));
    std::string got;
    for (const auto& name : differing) got += fmt::format("{}{} {{tuple({}.shape)}}", got.empty() ? "" : ", ", name, name);
    sizes_and_checks += fmt::format("    else:\n        raise ValueError(f\"{}: {} have no layout the kernel takes; expected {}\")\n", function,
                                    got, doc_text(fmt::format("{}", fmt::join(texts, "; or "))));
  }
  std::string checks;
  for (const CallArg* a : outputs)
    if (a->tensor->optional) checks += fmt::format("    has_{0} = _scalar(with_{0}, \"with_{0}\", bool)\n", a->name);
  // The task's constraints on sizes and parameters, which the kernel relies on (a head count that another does not
  // divide would read the wrong heads, silently, and a flag other than 0 or 1 may read as either); the docstring
  // states them.
  std::vector<std::string> needs;
  for (const Constraint& c : task.constraints) {
    std::string sizes_read;
    for (const auto& name : tasks::expression_names(c.check)) sizes_read += fmt::format("{0}{1}={1}", sizes_read.empty() ? "" : ", ", name);
    checks += fmt::format("    _require({}, \"{}\", dict({}))\n", python_expression(c.check), doc_text(c.says), sizes_read);
    needs.push_back(doc_text(c.says));
  }
  const std::string documented_needs =
      needs.empty() ? "" : fmt::format("    Every call needs (else ValueError): {}.\n", fmt::join(needs, "; "));

  // What a kernel can be given, by name: the task's inputs (scalars as 0-d arrays), then what
  // earlier kernels wrote (scratch buffers and task outputs: their shapes, held in <name>_shape, and dtypes).
  std::map<std::string, std::string> argument;
  std::map<std::string, std::pair<std::string, std::string>> written_as;  // name -> (shape, dtype)
  std::string output_shapes_code, documented_outputs;
  for (const auto& a : layout.args) {
    if (a.is_output) {
      const std::string shape = shape_tuple(*a.tensor, a.name);
      output_shapes_code += fmt::format("    {0}_shape = _indexable({1}, \"{0}\")\n", a.name,
                                        a.tensor->optional ? fmt::format("{} if has_{} else (0,)", shape, a.name) : shape);
      written_as[a.name] = {a.name + "_shape", mx_dtype(a.tensor->dtype, a.name)};
      documented_outputs += fmt::format("        {}: {} {}{}\n", a.name, mx_dtype(a.tensor->dtype, a.name).substr(3),
                                        declared_shape(*a.tensor), a.tensor->optional ? fmt::format(" (None unless with_{})", a.name) : "");
      continue;
    }
    if (a.kind == CallArg::Kind::tensor) {
      argument[a.name] = a.name;
      continue;
    }
    const ParamSpec* p = task.find_param(a.name);
    if (!p) {
      argument[a.name] = fmt::format("_int32({0}, \"{0}\")", a.name);  // a size
      continue;
    }
    const char* dtype = a.kind == CallArg::Kind::floating ? "mx.float32" : p->dtype == DType::boolean ? "mx.bool_" : "mx.int32";
    argument[a.name] = fmt::format("_scalar_input({0}_given, {0}, \"{0}\", {1})", a.name, dtype);
  }
  for (const auto& b : program.scratch) {
    std::string shape;
    for (const auto& d : b.shape) shape += (shape.empty() ? "" : ", ") + checked("_int", d, b.name + " shape");
    written_as[b.name] = {"(" + shape + (b.shape.size() == 1 ? ",)" : ")"), "mx." + std::string(metalsim::dtype_name(b.dtype))};
  }
  std::string has_templates;
  for (const auto& a : layout.args)
    if (a.kind == CallArg::Kind::tensor && a.tensor->optional)
      has_templates += fmt::format("{}(\"has_{}\", has_{})", has_templates.empty() ? "" : ", ", a.name, a.name);
  auto launch = [](const std::vector<std::string>& dims, const char* what) {
    std::string out;
    for (size_t i = 0; i < dims.size(); ++i)
      out += (out.empty() ? "" : ", ") + checked("_launch", dims[i], what, std::string(" ") + "xyz"[std::min<size_t>(i, 2)]);
    return "(" + out + ")";
  };

  const std::vector<KernelBuffers> buffers = kernel_buffers(task, program);
  std::string calls;
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const Candidate& candidate = program.kernels[i];
    std::string templates = has_templates, template_values, mlx_inputs, output_shapes, output_dtypes, names;
    for (const auto& t : candidate.templates) {
      std::string value;
      if (t.value == "true" || t.value == "false") value = t.value == "true" ? "True" : "False";
      else if (auto dtype = metalsim::parse_dtype(t.value)) value = "mx." + std::string(metalsim::dtype_name(*dtype));
      else {
        // A local variable: the grid and threadgroup expressions may use it.
        template_values += fmt::format("    {} = {}\n", t.name, checked("_int", t.value, "template " + t.name));
        value = t.name;
      }
      templates += fmt::format("{}(\"{}\", {})", templates.empty() ? "" : ", ", t.name, value);
    }
    for (const auto& name : buffers[i].inputs)
      mlx_inputs += (mlx_inputs.empty() ? "" : ", ") + (argument.count(name) ? argument.at(name) : name);
    for (const auto& name : buffers[i].outputs) {
      output_shapes += (output_shapes.empty() ? "" : ", ") + written_as.at(name).first;
      output_dtypes += (output_dtypes.empty() ? "" : ", ") + written_as.at(name).second;
      names += (names.empty() ? "" : ", ") + name;
    }
    calls += fmt::format(
        "{0}"
        "    {1} = kernel{2}()(\n"
        "        inputs=[{3}],\n"
        "        template=[{4}],\n"
        "        grid={5},\n"
        "        threadgroup={6},\n"
        "        output_shapes=[{7}],\n"
        "        output_dtypes=[{8}],\n"
        "        init_value={9},\n"
        "        stream=stream,\n"
        "    )\n",
        template_values, program.multi_kernel() ? "[" + names + "]" : "outputs", kernel_suffix(program, candidate), mlx_inputs,
        templates, launch(candidate.grid, "grid"), launch(candidate.threadgroup, "threadgroup"), output_shapes, output_dtypes,
        candidate.init_value ? python_expression(*candidate.init_value) : "None");
  }
  // A single kernel's outputs are `outputs[i]`; a sequence's are the names its kernels assigned. With no
  // element to compute, the outputs are empty arrays and no kernel runs (a launch needs at least one thread).
  std::string returned, returned_empty, all_empty;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const CallArg& out = *outputs[i];
    const std::string value = program.multi_kernel() ? out.name : fmt::format("outputs[{}]", i);
    const std::string empty = fmt::format("mx.zeros({}_shape, {})", out.name, mx_dtype(out.tensor->dtype, out.name));
    const std::string optional = out.tensor->optional ? fmt::format(" if has_{} else None", out.name) : "";
    returned += (i ? ", " : "") + value + optional;
    returned_empty += (i ? ", " : "") + empty + optional;
    all_empty += (i ? " and " : "") + fmt::format("_empty({}_shape)", out.name);
  }
  std::vector<std::string> output_names;
  for (const CallArg* a : outputs) output_names.push_back(a->name);
  const std::string returns = outputs.size() == 1 ? output_names[0] : "(" + fmt::format("{}", fmt::join(output_names, ", ")) + ")";
  // The docstring's first line, "<description>: returns y.", without the description's own closing period.
  std::string summary = doc_text(task.description.empty() ? task.name : task.description);
  if (!summary.empty() && summary.back() == '.') summary.pop_back();
  return fmt::format(
      "@_explains_missing_metal\n"
      "def {0}({1}, *, stream=None{2}):\n"
      "    \"\"\"{3}: returns {4}.\n"
      "\n"
      "    Inputs (mx arrays, numpy arrays or nested lists; converted to these dtypes, complex refused):\n"
      "{5}"
      "{6}"
      "    Returns (always these dtypes, whatever the inputs' dtypes):\n"
      "{7}"
      "    \"\"\"\n"
      "    _stream(stream)\n"
      "{8}{9}{10}{11}{12}"
      "    if {13}:\n"
      "        return {14}\n"
      "{15}"
      "    return {16}\n",
      function, params, keywords, summary, returns, documented_inputs,
      "    Keywords:\n" + documented_keywords + "        stream: the MLX stream or device to run on (default None: MLX's default)\n" +
          documented_needs,
      documented_outputs, conversions, scalars,
      sizes_and_checks, checks, output_shapes_code, all_empty, returned_empty, calls, returned);
}

// The module's function takes the task's names as its parameters and locals: a Python keyword (`lambda`), a name its
// code reads (mx, math, stream, dict, min, ...) or one of its private names (`_...`) would not compile or would shadow
// what the call needs, so such a name is refused with what to do.
void require_python_names(const Task& task) {
  static const std::set<std::string> taken = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
      "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
      "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
      // the module's imports and the builtins and locals its function uses
      "mx", "math", "numbers", "sys", "functools", "stream", "outputs", "dict", "tuple", "int", "float", "bool", "min", "max",
      "abs", "round", "len", "isinstance"};
  auto check = [&](const std::string& name, const char* what) {
    if (taken.count(name) || name.rfind('_', 0) == 0)
      throw Error(fmt::format("task {}: its {} '{}' cannot be a parameter of the exported Python function ({}): rename it in "
                              "the task file for --format mlx",
                              task.name, what, name,
                              name.rfind('_', 0) == 0 ? "names starting with '_' are the module's own"
                                                       : "a Python keyword, or a name the module's code reads"));
  };
  for (const auto& t : task.inputs) check(t.name, "input");
  for (const auto& t : task.outputs) check(t.name, "output");
  for (const auto& p : task.params) check(p.name, "parameter");
  for (const auto& [axis, description] : task.axes) check(axis, "axis");
}

void require_mlx_lm_interface(const Task& task) {
  const std::vector<std::string> expected = {"x", "delta", "A", "B", "C", "D", "state", "y", "new_state"};
  std::vector<std::string> tensors;
  for (const auto& a : call_layout(task, "metal").args)
    if (a.kind == CallArg::Kind::tensor) tensors.push_back(a.name);
  if (tensors != expected)
    throw Error("--format mlx-lm replaces mlx-lm's Mamba prefill, so it needs a task with its interface "
                "(x, delta, A, B, C, D, state -> y, new_state, as tasks/mamba_mlx_lm); task " + task.name + " has " +
                fmt::format("{}", fmt::join(tensors, ", ")));
}

}  // namespace

std::string python_expression(const std::string& expression) { return PythonExpression(expression).translate(); }

std::string python_expression_helpers() { return kMlxExpressionHelpers; }

MlxExportFile mlx_export(const Task& task, const std::string& source, const std::string& comment, MlxExport kind) {
  require_python_names(task);
  if (kind == MlxExport::mlx_lm) require_mlx_lm_interface(task);
  const Program program = parse_program(source);
  const CallLayout layout = call_layout(task, "metal");
  std::vector<std::string> output_names;
  std::string first_inputs, optional_outputs;  // the usage line asks for every output it names (None unless asked)
  for (const auto& a : layout.args) {
    if (a.is_output) output_names.push_back(a.name);
    if (a.is_output && a.tensor->optional) optional_outputs += ", with_" + a.name + "=True";
    if (a.kind == CallArg::Kind::tensor && !a.is_output && !a.tensor->optional)
      first_inputs += (first_inputs.empty() ? "" : ", ") + a.name;
  }
  first_inputs += optional_outputs;
  const std::string function = task.entry("metal").function;
  const std::string module = task.name + (kind == MlxExport::mlx_lm ? "_mlx_lm" : "_mlx");
  // Each kernel: its header and body verbatim, and the mx.fast.metal_kernel object built once.
  const std::vector<KernelBuffers> buffers = kernel_buffers(task, program);
  const std::string kernel_template = std::string(kMlxKernelTemplate).substr(std::string(kMlxKernelTemplate).find('\n') + 1);
  const std::string call = call_function(task, program);
  std::string kernels;
  std::vector<std::string> public_names = {function};
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const Candidate& k = program.kernels[i];
    std::string suffix = kernel_suffix(program, k), upper = suffix;
    public_names.push_back("kernel" + suffix);
    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    std::string text = kernel_template;
    text = replace_all(text, "{{HEADER}}", python_string(k.header));
    text = replace_all(text, "{{SOURCE}}", python_string(k.body));
    text = replace_all(text, "{{SUFFIX}}", upper);
    text = replace_all(text, "{{suffix}}", suffix);
    const std::string name = kernel_name(program.multi_kernel() ? k.name : function, k, buffers[i], call);
    text = replace_all(text, "{{NAME}}", json_text(nlohmann::json(name)));
    text = replace_all(text, "{{INPUT_NAMES}}", python_list(buffers[i].inputs));
    text = replace_all(text, "{{OUTPUT_NAMES}}", python_list(buffers[i].outputs));
    text = replace_all(text, "{{ATOMIC_OUTPUTS}}", k.atomic_outputs ? "True" : "False");
    kernels += text;
  }
  std::string text = kMlxModuleTemplate;
  text = replace_all(text, "{{COMMENT}}\n", comment);
  text = replace_all(text, "{{USAGE}}",
                     kind == MlxExport::mlx_lm
                         ? "patch(model)  # an mlx-lm Mamba model: its prompts now run the kernel"
                         : fmt::format("{} = {}({})", fmt::join(output_names, ", "), function, first_inputs));
  if (kind == MlxExport::mlx_lm) public_names.insert(public_names.end(), {"patch", "unpatch"});
  text = replace_all(text, "{{PUBLIC_NAMES}}", python_list(public_names));
  text = replace_all(text, "{{TASK}}", task.name);
  text = replace_all(text, "{{MODULE}}", module);
  text = replace_all(text, "{{CALL}}", call);
  text = replace_all(text, "{{KERNELS}}", kernels);
  text = replace_all(text, "{{EXPRESSION_HELPERS}}", kMlxExpressionHelpers);
  if (kind == MlxExport::mlx_lm) text += kMlxLmPatchTemplate;
  text = replace_all(text, "{{FUNCTION}}", function);
  return {module + ".py", text};
}

}  // namespace ksearch::metal
