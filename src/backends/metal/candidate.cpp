#include "backends/metal/candidate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "tasks/expr.hpp"
#include "tasks/signature.hpp"

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

}  // namespace

Candidate parse_candidate(const std::string& source) {
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  Candidate c;
  size_t marker = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (std::regex_match(lines[i], kBodyMarker)) { marker = i; break; }

  // Directives: the leading run of comment and blank lines (before any code and the marker).
  size_t code_start = 0;
  for (; code_start < std::min(marker, lines.size()); ++code_start) {
    const std::string t = trim(lines[code_start]);
    if (!t.empty() && t.rfind("//", 0) != 0) break;
    std::smatch m;
    if (!std::regex_match(lines[code_start], m, kDirective)) continue;  // prose comment
    const int line = int(code_start) + 1;
    const std::string key = m[1];
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
        if (name.empty() || !std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")) || trim(item.substr(eq + 1)).empty())
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
    }
  }
  if (c.grid.empty()) throw Error("missing directive: a leading '// grid: X, Y, Z' line (threads, as in MLX)");
  if (c.threadgroup.empty()) throw Error("missing directive: a leading '// threadgroup: X, Y, Z' line");

  auto join = [&](size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i) text += lines[i] + "\n";
    return text;
  };
  if (marker < lines.size()) {
    c.header = join(code_start, marker);
    c.header_first_line = int(code_start) + 1;
    c.body = join(marker + 1, lines.size());
    c.body_first_line = int(marker) + 2;
  } else {
    c.body = join(code_start, lines.size());
    c.body_first_line = int(code_start) + 1;
  }
  if (trim(c.body).empty()) throw Error("the kernel body is empty");
  return c;
}

WorkloadKernel kernel_for_workload(const Task& task, const Candidate& candidate, const Workload& workload) {
  WorkloadKernel k;
  metalsim::KernelSpec& spec = k.spec;
  spec.name = task.entry("metal").function;
  spec.header = candidate.header;
  spec.source = candidate.body;
  spec.atomic_outputs = candidate.atomic_outputs;
  auto values = task.bindings(workload);
  const CallLayout layout = call_layout(task, "metal");

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
      (arg.is_output ? spec.outputs : spec.inputs).push_back(t);
      (arg.is_output ? k.outputs : k.inputs).push_back({Binding::From::tensor, arg.slot});
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
    spec.inputs.push_back(t);
    k.inputs.push_back({arg.kind == CallArg::Kind::floating ? Binding::From::floating : Binding::From::integer, arg.slot});
  }
  spec.template_args = has_flags;

  auto integer = [&](const std::string& expr, int line, const std::string& what) {
    double v;
    try {
      v = evaluate_expression(expr, values);
    } catch (const std::exception& e) {
      throw Error(fmt::format("line {}: {}: {}", line, what, e.what()));
    }
    if (!std::isfinite(v) || v > INT_MAX || v < INT_MIN || v != std::floor(v))
      throw Error(fmt::format("line {}: {}: '{}' = {} in workload {} is not an int", line, what, expr, v, workload.name));
    return int(v);
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
  return k;
}

}  // namespace ksearch::metal
