#include "backends/metal/candidate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "tasks/expr.hpp"
#include "tasks/signature.hpp"

using ksearch::tasks::CallArg;
using ksearch::tasks::CallLayout;
using ksearch::tasks::ParamSpec;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::call_layout;
using ksearch::tasks::evaluate_expression;

namespace ksearch::metal {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Splits at commas outside parentheses, so that `min(a, b), 1, 1` is three expressions.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(trim(current));
  return parts;
}

std::vector<std::string> three_dims(const std::string& value, int line, const char* key) {
  auto parts = split_top_level(value);
  if (parts.empty() || parts.size() > 3 || std::any_of(parts.begin(), parts.end(), [](auto& p) { return p.empty(); }))
    throw Error(fmt::format("line {}: {}: expected 1 to 3 comma-separated expressions, got '{}'", line, key, value));
  while (parts.size() < 3) parts.push_back("1");
  return parts;
}

const std::regex kBodyMarker(R"(^\s*//\s*-{3,}\s*body\s*-{3,}\s*$)");
const std::regex kDirective(R"(^\s*//\s*([a-z_]+)\s*:\s*(.*?)\s*$)");
const std::regex kKernelMarker(R"(^\s*//\s*-{3,}\s*kernel\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*-{3,}\s*$)");

metalsim::Dtype metal_dtype(DType d, const std::string& what) {
  switch (d) {
    case DType::f32: return metalsim::Dtype::float32;
    case DType::f16: return metalsim::Dtype::float16;
    case DType::bf16: return metalsim::Dtype::bfloat16;
    case DType::i32: return metalsim::Dtype::int32;
    case DType::i64: return metalsim::Dtype::int64;
    case DType::u8: return metalsim::Dtype::uint8;
    case DType::boolean: return metalsim::Dtype::bool_;
    case DType::f64: break;
  }
  throw Error(fmt::format("{} is f64: Metal has no double precision", what));
}

// One kernel's section: lines [from, to) of the file (0-based), reported as file lines.
Candidate parse_section(const std::vector<std::string>& lines, size_t from, size_t to, bool multi_kernel) {
  Candidate c;
  size_t marker = to;
  for (size_t i = from; i < to; ++i)
    if (std::regex_match(lines[i], kBodyMarker)) { marker = i; break; }

  // Directives: the leading run of comment and blank lines (before any code and the marker).
  size_t code_start = from;
  std::set<std::string> seen_directives;
  for (; code_start < marker; ++code_start) {
    const std::string t = trim(lines[code_start]);
    if (!t.empty() && t.rfind("//", 0) != 0) break;
    std::smatch m;
    if (!std::regex_match(lines[code_start], m, kDirective)) continue;  // prose comment
    const int line = int(code_start) + 1;
    const std::string key = m[1];
    // A directive given twice would be overridden without a word; a misspelt one (`// gird: ...`) would read as
    // prose, and an optional one (`atomic_outputs`, `init_value`) would silently not apply.
    static const std::vector<std::string> kDirectives = {"grid", "threadgroup", "template", "init_value", "atomic_outputs",
                                                         "outputs", "scratch"};
    if (std::find(kDirectives.begin(), kDirectives.end(), key) == kDirectives.end()) {
      for (const auto& directive : kDirectives)
        if (key.size() >= 4 && edit_distance(key, directive) <= 2)
          throw Error(fmt::format("line {}: '{}:' is no directive; did you mean '{}:'? (write prose comments so that they "
                                  "do not look like one)",
                                  line, key, directive));
      continue;
    }
    if (key != "template" && !seen_directives.insert(key).second)
      throw Error(fmt::format("line {}: a second '{}' directive in one kernel (one sets it; 'template' may repeat)", line, key));
    // A trailing comment (e.g. a `// ksearch:knob` declaration) is not part of the value.
    const std::string value = trim(m[2].str().substr(0, m[2].str().find("//")));
    if (key == "grid") {
      c.grid = three_dims(value, line, "grid");
      c.grid_line = line;
    } else if (key == "threadgroup") {
      c.threadgroup = three_dims(value, line, "threadgroup");
      c.threadgroup_line = line;
    } else if (key == "template") {
      for (const auto& item : split_top_level(value)) {
        const size_t eq = item.find('=');
        const std::string name = eq == std::string::npos ? "" : trim(item.substr(0, eq));
        if (!is_identifier(name) || trim(item.substr(eq + 1)).empty())
          throw Error(fmt::format("line {}: template: expected NAME = value, got '{}'", line, item));
        c.templates.push_back({name, trim(item.substr(eq + 1)), line});
      }
    } else if (key == "init_value") {
      c.init_value = value;
      c.init_value_line = line;
    } else if (key == "atomic_outputs") {
      if (value != "true" && value != "false")
        throw Error(fmt::format("line {}: atomic_outputs: expected true or false, got '{}'", line, value));
      c.atomic_outputs = value == "true";
    } else if (key == "outputs" && multi_kernel) {
      c.outputs = split_top_level(value);
      c.outputs_line = line;
      for (const auto& name : c.outputs)
        if (!is_identifier(name))
          throw Error(fmt::format("line {}: outputs: expected buffer names, got '{}'", line, value));
    } else if (key == "scratch" && multi_kernel) {
      throw Error(fmt::format("line {}: scratch buffers are declared before the first kernel section", line));
    }
  }
  const std::string where = multi_kernel ? fmt::format(" in kernel section line {}", from) : "";
  if (c.grid.empty()) throw Error("missing directive: a leading '// grid: X, Y, Z' line (threads, as in MLX)" + where);
  if (c.threadgroup.empty()) throw Error("missing directive: a leading '// threadgroup: X, Y, Z' line" + where);
  if (multi_kernel && c.outputs.empty())
    throw Error(fmt::format("line {}: kernel section without an '// outputs: NAME, ...' directive (the buffers it writes)", from));

  auto join = [&](size_t a, size_t b) {
    std::string text;
    for (size_t i = a; i < b; ++i) text += lines[i] + "\n";
    return text;
  };
  if (marker < to) {
    c.header = join(code_start, marker);
    c.header_first_line = int(code_start) + 1;
    c.body = join(marker + 1, to);
    c.body_first_line = int(marker) + 2;
  } else {
    c.body = join(code_start, to);
    c.body_first_line = int(code_start) + 1;
  }
  if (trim(c.body).empty()) throw Error("the kernel body is empty" + where);
  return c;
}

}  // namespace

Program parse_program(const std::string& source) {
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  // std::regex recurses per character: a line of tens of kilobytes would overflow the stack in the matches below.
  constexpr size_t kMaxLineChars = 10000;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].size() > kMaxLineChars)
      throw Error(fmt::format("line {}: {} characters, more than the {} a candidate's line may have", i + 1,
                              lines[i].size(), kMaxLineChars));
  std::vector<size_t> sections;
  std::vector<std::string> names;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, kKernelMarker)) {
      sections.push_back(i);
      names.push_back(m[1]);
    }
  }
  Program p;
  if (sections.empty()) {
    p.kernels.push_back(parse_section(lines, 0, lines.size(), false));
    return p;
  }
  // Before the first section: comments and scratch declarations only.
  for (size_t i = 0; i < sections[0]; ++i) {
    const std::string t = trim(lines[i]);
    const int line = int(i) + 1;
    if (!t.empty() && t.rfind("//", 0) != 0)
      throw Error(fmt::format("line {}: code before the first '// --- kernel: NAME ---' section", line));
    std::smatch m;
    if (!std::regex_match(lines[i], m, kDirective) || m[1] != "scratch") continue;
    const std::string value = trim(m[2].str().substr(0, m[2].str().find("//")));
    std::smatch d;
    static const std::regex kScratch(R"(([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([a-z0-9_]+)\s*\[(.*)\])");
    const auto dtype = std::regex_match(value, d, kScratch) ? metalsim::parse_dtype(d[2].str()) : std::nullopt;
    if (!dtype)
      throw Error(fmt::format("line {}: scratch: expected NAME = DTYPE[size, ...] (DTYPE an MLX dtype such as float32), got '{}'",
                              line, value));
    ScratchBuffer b{d[1], *dtype, split_top_level(d[3]), line};
    if (std::any_of(b.shape.begin(), b.shape.end(), [](auto& e) { return e.empty(); }))
      throw Error(fmt::format("line {}: scratch: an empty size in '{}'", line, value));
    for (const auto& other : p.scratch)
      if (other.name == b.name) throw Error(fmt::format("line {}: scratch buffer '{}' declared twice", line, b.name));
    p.scratch.push_back(b);
  }
  for (size_t s = 0; s < sections.size(); ++s) {
    Candidate c = parse_section(lines, sections[s] + 1, s + 1 < sections.size() ? sections[s + 1] : lines.size(), true);
    c.name = names[s];
    c.name_line = int(sections[s]) + 1;
    for (const auto& other : p.kernels)
      if (other.name == c.name) throw Error(fmt::format("line {}: a second kernel named '{}'", c.name_line, c.name));
    p.kernels.push_back(std::move(c));
  }
  return p;
}

Candidate parse_candidate(const std::string& source) {
  Program p = parse_program(source);
  if (p.multi_kernel()) throw Error("a multi-kernel candidate where one kernel was expected");
  return p.kernels.front();
}

namespace {

// A buffer a kernel can take: its spec and where it comes from in the call.
struct Source {
  metalsim::TensorSpec tensor;
  Binding binding;
};

int integer_value(const std::string& expr, const std::map<std::string, double>& values, int line, const std::string& what,
                  const std::string& workload) {
  double v;
  try {
    v = evaluate_expression(expr, values);
  } catch (const std::exception& e) {
    throw Error(fmt::format("line {}: {}: {}", line, what, e.what()));
  }
  if (!std::isfinite(v) || v > INT_MAX || v < INT_MIN || v != std::floor(v))
    throw Error(fmt::format("line {}: {}: '{}' = {} in workload {} is not an int", line, what, expr, v, workload));
  return int(v);
}

// Templates, launch geometry and init_value of one kernel (`values`: the workload's axes and params).
void launch_for_workload(const Candidate& candidate, std::map<std::string, double> values, const Workload& workload,
                         metalsim::KernelSpec& spec) {
  auto integer = [&](const std::string& expr, int line, const std::string& what) {
    return integer_value(expr, values, line, what, workload.name);
  };
  for (const auto& t : candidate.templates) {
    if (t.value == "true" || t.value == "false")
      spec.template_args.push_back(metalsim::TemplateArg::boolean(t.name, t.value == "true"));
    else if (auto dtype = metalsim::parse_dtype(t.value))
      spec.template_args.push_back(metalsim::TemplateArg::type(t.name, *dtype));
    else {
      // Later directives may use an int template (e.g. `threadgroup: TG, 1, 1` with `template: TG = 64`).
      const int v = integer(t.value, t.line, "template " + t.name);
      spec.template_args.push_back(metalsim::TemplateArg::integer(t.name, v));
      values.emplace(t.name, v);
    }
  }
  for (int d = 0; d < 3; ++d) {
    spec.grid[size_t(d)] = integer(candidate.grid[size_t(d)], candidate.grid_line, "grid");
    spec.threadgroup[size_t(d)] = integer(candidate.threadgroup[size_t(d)], candidate.threadgroup_line, "threadgroup");
  }
  for (int d = 0; d < 3; ++d)
    if (spec.grid[size_t(d)] <= 0 || spec.threadgroup[size_t(d)] <= 0)
      throw Error(fmt::format("line {}: grid and threadgroup sizes must be positive (workload {}: grid {}x{}x{}, threadgroup {}x{}x{})",
                              spec.grid[size_t(d)] <= 0 ? candidate.grid_line : candidate.threadgroup_line, workload.name,
                              spec.grid[0], spec.grid[1], spec.grid[2], spec.threadgroup[0], spec.threadgroup[1],
                              spec.threadgroup[2]));
  if (candidate.init_value) {
    try {
      spec.init_value = float(evaluate_expression(*candidate.init_value, values));
    } catch (const std::exception& e) {
      throw Error(fmt::format("line {}: init_value: {}", candidate.init_value_line, e.what()));
    }
  }
}

}  // namespace

WorkloadProgram program_for_workload(const Task& task, const Program& program, const Workload& workload) {
  const auto values = task.bindings(workload);
  const CallLayout layout = call_layout(task, "metal");

  std::vector<Source> task_inputs, task_outputs;
  std::vector<metalsim::TemplateArg> has_flags;
  for (const auto& arg : layout.args) {
    metalsim::TensorSpec t;
    t.name = arg.name;
    if (arg.kind == CallArg::Kind::tensor) {
      t.dtype = metal_dtype(arg.tensor->dtype, "tensor '" + arg.name + "'");
      // An absent optional tensor is a zero-size array: any access to it is out of bounds.
      t.shape = task.shape_of(*arg.tensor, workload).value_or(std::vector<int64_t>{0});
      if (arg.tensor->optional)
        has_flags.push_back(metalsim::TemplateArg::boolean("has_" + arg.name, !workload.absent.count(arg.name)));
      (arg.is_output ? task_outputs : task_inputs).push_back({t, {Binding::From::tensor, arg.slot}});
      continue;
    }
    // Scalars are 0-d inputs (`const constant T& name`): MLX has no scalar kernel arguments, and
    // runtime values keep one compiled kernel for every shape.
    const ParamSpec* p = task.find_param(arg.name);
    if (arg.kind == CallArg::Kind::floating) {
      t.dtype = metalsim::Dtype::float32;
    } else {
      t.dtype = p && p->dtype == DType::boolean ? metalsim::Dtype::bool_ : metalsim::Dtype::int32;
      const double v = values.at(arg.name);
      if (v > INT32_MAX || v < INT32_MIN)
        throw Error(fmt::format("{} = {} in workload {} does not fit the int32 kernel argument", arg.name, v, workload.name));
    }
    task_inputs.push_back({t, {arg.kind == CallArg::Kind::floating ? Binding::From::floating : Binding::From::integer, arg.slot}});
  }

  WorkloadProgram out;
  // What the kernels may write: the task's outputs and the scratch buffers, by name.
  std::map<std::string, Source> writable;
  for (const auto& o : task_outputs) writable[o.tensor.name] = o;
  for (size_t i = 0; i < program.scratch.size(); ++i) {
    const ScratchBuffer& b = program.scratch[i];
    if (std::any_of(layout.args.begin(), layout.args.end(), [&](const CallArg& a) { return a.name == b.name; }))
      throw Error(fmt::format("line {}: scratch buffer '{}' has the name of a task argument", b.line, b.name));
    metalsim::TensorSpec t{b.name, b.dtype, {}};
    for (const auto& size : b.shape) {
      const int n = integer_value(size, values, b.line, "scratch " + b.name, workload.name);
      if (n < 0) throw Error(fmt::format("line {}: scratch {}: size '{}' = {} in workload {} is negative", b.line, b.name, size, n, workload.name));
      t.shape.push_back(n);
    }
    out.scratch.push_back(t);
    writable[b.name] = {t, {Binding::From::scratch, int(i)}};
  }

  std::vector<Source> written;  // by earlier kernels, in order: later kernels read them
  for (const Candidate& candidate : program.kernels) {
    WorkloadKernel k;
    metalsim::KernelSpec& spec = k.spec;
    spec.name = program.multi_kernel() ? candidate.name : task.entry("metal").function;
    spec.header = candidate.header;
    spec.source = candidate.body;
    spec.atomic_outputs = candidate.atomic_outputs;
    for (const auto* list : {&task_inputs, &written})
      for (const auto& s : *list) {
        spec.inputs.push_back(s.tensor);
        k.inputs.push_back(s.binding);
      }
    std::vector<Source> outputs = task_outputs;
    if (program.multi_kernel()) {
      outputs.clear();
      for (const auto& name : candidate.outputs) {
        auto w = writable.find(name);
        if (w == writable.end())
          throw Error(fmt::format("line {}: outputs: '{}' is neither a task output nor a scratch buffer", candidate.outputs_line, name));
        if (std::any_of(written.begin(), written.end(), [&](const Source& s) { return s.tensor.name == name; }) ||
            std::any_of(outputs.begin(), outputs.end(), [&](const Source& s) { return s.tensor.name == name; }))
          throw Error(fmt::format("line {}: outputs: '{}' is written by an earlier kernel (each MLX kernel call writes fresh "
                                  "arrays: a buffer is written by one kernel and read by later ones)",
                                  candidate.outputs_line, name));
        outputs.push_back(w->second);
      }
    }
    for (const auto& s : outputs) {
      spec.outputs.push_back(s.tensor);
      k.outputs.push_back(s.binding);
    }
    spec.template_args = has_flags;
    launch_for_workload(candidate, values, workload, spec);
    written.insert(written.end(), outputs.begin(), outputs.end());
    out.kernels.push_back(std::move(k));
  }
  for (const auto& [name, source] : writable)
    if (!std::any_of(written.begin(), written.end(), [&](const Source& s) { return s.tensor.name == name; }))
      throw Error(source.binding.from == Binding::From::scratch
                      ? fmt::format("line {}: no kernel writes scratch buffer '{}'", program.scratch[size_t(source.binding.slot)].line, name)
                      : fmt::format("no kernel writes the task output '{}' (name it in a kernel's outputs directive)", name));
  return out;
}

}  // namespace ksearch::metal
