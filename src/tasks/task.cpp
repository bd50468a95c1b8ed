#include "tasks/task.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <toml++/toml.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "tasks/expr.hpp"
#include "tasks/toml_file.hpp"

namespace fs = std::filesystem;

namespace ksearch::tasks {

bool Workload::runs_on(const std::string& backend) const {
  return backends.empty() || std::find(backends.begin(), backends.end(), backend) != backends.end();
}

const TensorSpec* Task::find_tensor(const std::string& tensor_name) const {
  for (const auto* list : {&inputs, &outputs})
    for (const auto& t : *list)
      if (t.name == tensor_name) return &t;
  return nullptr;
}

const ParamSpec* Task::find_param(const std::string& param_name) const {
  for (const auto& p : params)
    if (p.name == param_name) return &p;
  return nullptr;
}

bool Task::is_axis(const std::string& axis_name) const {
  return std::any_of(axes.begin(), axes.end(), [&](const auto& a) { return a.first == axis_name; });
}

const Workload& Task::workload(const std::string& workload_name) const {
  for (const auto& w : workloads)
    if (w.name == workload_name) return w;
  throw Error(fmt::format("task '{}' has no workload '{}'", name, workload_name));
}

const EntrySpec& Task::entry(const std::string& backend) const {
  auto it = entries.find(backend);
  if (it == entries.end()) {
    std::string known;
    for (const auto& [b, _] : entries) known += (known.empty() ? "" : ", ") + b;
    throw Error(fmt::format("task '{}' has no entry for backend '{}' (it has: {})", name, backend, known));
  }
  return it->second;
}

Tolerance Task::tolerance(DType dtype) const {
  auto it = tolerances.find(dtype);
  if (it != tolerances.end()) return it->second;
  switch (dtype) {  // conservative defaults when the task file is silent
    case DType::f16: return {1e-2, 1e-3};
    case DType::bf16: return {2e-2, 1e-2};
    case DType::f32: return {1e-4, 1e-5};
    case DType::f64: return {1e-9, 1e-12};
    default: return {0, 0};
  }
}

std::map<std::string, double> Task::bindings(const Workload& w) const {
  std::map<std::string, double> values;
  for (const auto& p : params) values[p.name] = p.default_value;
  for (const auto& [k, v] : w.params) values[k] = v;
  for (const auto& [k, v] : w.axes) values[k] = double(v);
  // Optional tensors appear in expressions as has_<name> (1 present, 0 absent), e.g. in byte counts.
  for (const auto* list : {&inputs, &outputs})
    for (const auto& t : *list)
      if (t.optional) values["has_" + t.name] = w.absent.count(t.name) ? 0.0 : 1.0;
  return values;
}

Distribution Task::dist_for(const TensorSpec& t, const Workload& w) const {
  Distribution d = t.dist;
  if (d.a_expr.empty() && d.b_expr.empty()) return d;
  const auto values = bindings(w);
  if (!d.a_expr.empty()) d.a = evaluate_expression(d.a_expr, values);
  if (!d.b_expr.empty()) d.b = evaluate_expression(d.b_expr, values);
  return d;
}

std::string Task::generation_spec(const Workload& w) const {
  std::string spec;
  for (const auto& t : inputs) {
    const Distribution d = dist_for(t, w);
    spec += fmt::format("{}:{}:{}:{}:{}:{}:{};", t.name, dtype_name(t.dtype), fmt::join(t.shape, ","), t.optional, d.kind, d.a, d.b);
  }
  spec += "|";
  for (const auto& [k, v] : bindings(w)) spec += fmt::format("{}={};", k, v);
  for (const auto& [tensor, shape] : w.shapes) spec += fmt::format("{}[{}];", tensor, fmt::join(shape, ","));
  return spec;
}

namespace {

const std::vector<std::string>& dimensions(const TensorSpec& t, const Workload& w) {
  auto it = w.shapes.find(t.name);
  return it != w.shapes.end() ? it->second : t.shape;
}

// Why a dimension's value is none, or "": a positive integer a double holds exactly. (A present tensor of no
// element would reach the reference as a null pointer, as an absent one does, and leave nothing to time.)
std::string dimension_problem(double value) {
  if (!std::isfinite(value) || value != std::floor(value)) return "not an integer";
  if (value < 1) return "not positive";
  if (value > kMaxDimension) return "above 2^53";
  return "";
}

// Task and workload names become parts of file and folder names (runs, caches, exports): no separators, no "..".
std::string file_name_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name[0] == '.' || name[0] == '-') return "starts with '.' or '-'";
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return fmt::format("holds '{}': a name is letters, digits, '_', '-' and '.'", c);
  return "";
}

}  // namespace

std::optional<std::vector<int64_t>> Task::shape_of(const TensorSpec& t, const Workload& w) const {
  if (w.absent.count(t.name)) return std::nullopt;
  const auto values = bindings(w);
  std::vector<int64_t> shape;
  for (const auto& dim : dimensions(t, w)) {
    const double value = evaluate_expression(dim, values);
    if (const std::string problem = dimension_problem(value); !problem.empty())
      throw Error(fmt::format("task '{}', workload '{}': dimension '{}' of '{}' is {}, {}", name, w.name, dim, t.name, value,
                              problem));
    shape.push_back(int64_t(value));
  }
  return shape;
}

uint64_t Task::tensor_bytes(const Workload& w) const {
  uint64_t total = 0;
  for (const auto* list : {&inputs, &outputs})
    for (const auto& t : *list)
      if (const auto shape = shape_of(t, w)) {
        uint64_t bytes = 0;
        if (__builtin_mul_overflow(element_count(*shape), dtype_size(t.dtype) + sizeof(double), &bytes) ||
            __builtin_add_overflow(total, bytes, &total))
          throw Error(fmt::format("the tensors of workload '{}' take more than 2^64 bytes", w.name));
      }
  return total;
}

double Task::flops(const Workload& w) const { return evaluate_expression(flops_expr, bindings(w)); }
double Task::bytes(const Workload& w) const { return evaluate_expression(bytes_expr, bindings(w)); }
double Task::transcendentals(const Workload& w) const { return evaluate_expression(transcendentals_expr, bindings(w)); }

double Task::reference_cost(const Workload& w) const {
  const double f = flops(w);
  return f > 0 ? f : bytes(w);
}

const DeviceReferenceSpec* Task::device_reference_for(const std::string& backend, const Workload& w) const {
  auto it = device_references.find(backend);
  return it != device_references.end() && reference_cost(w) >= it->second.above_flops ? &it->second : nullptr;
}

std::vector<const Workload*> Task::workloads_for(const std::string& backend, bool held_out) const {
  std::vector<const Workload*> out;
  for (const auto& w : workloads)
    if (w.runs_on(backend) && w.held_out == held_out) out.push_back(&w);
  return out;
}

uint64_t workload_byte_limit() {
  static const uint64_t limit = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) / 2 : UINT64_MAX;
  }();
  return limit;
}

size_t element_count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, size_t(d), &n))
      throw Error(fmt::format("a tensor of shape [{}] has a negative size or more than 2^64 elements", fmt::join(shape, ", ")));
  return n;
}

size_t byte_count(const std::vector<int64_t>& shape, DType dtype) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(element_count(shape), dtype_size(dtype), &bytes))
    throw Error(fmt::format("a tensor of shape [{}] has more than 2^64 bytes", fmt::join(shape, ", ")));
  return bytes;
}

namespace {


const std::set<std::string> kDistributions = {"normal", "uniform", "log_uniform", "neg_log_uniform", "randint"};

// Why values cannot be drawn from `d` (its bounds resolved) for a `dtype` input, or "". A draw outside the
// dtype's values would be stored wrapped or as an infinity: reference and candidate would see other numbers than
// the task file says.
std::string dist_problem(const Distribution& d, DType dtype) {
  const bool normal = d.kind == "normal";
  if (!normal && d.b <= d.a) return fmt::format("needs lo < hi (lo {}, hi {})", d.a, d.b);
  if (normal && d.b <= 0) return fmt::format("std must be positive (std {})", d.b);
  if ((d.kind == "log_uniform" || d.kind == "neg_log_uniform") && d.a <= 0)
    return fmt::format("lo must be positive for a log-uniform distribution (lo {})", d.a);
  double lo = d.a, hi = d.b;
  if (normal) lo = d.a - 6 * d.b, hi = d.a + 6 * d.b;
  if (d.kind == "neg_log_uniform") lo = -d.b, hi = -d.a;
  const ValueRange range = dtype_range(dtype);
  // A bool holds any draw: rounded, nonzero is true.
  if (dtype == DType::boolean || (lo >= range.lo && hi <= range.hi)) return "";
  return fmt::format("draws values in [{}, {}]{}, outside what {} holds ([{}, {}]); they would be stored {}", lo, hi,
                     normal ? " (mean +- 6 std)" : "", dtype_name(dtype), range.lo, range.hi,
                     dtype_is_float(dtype) ? "as infinities" : "wrapped");
}

TensorSpec read_tensor(const TomlFileReader& r, const toml::node& node, const std::string& field, bool is_input) {
  const auto& t = r.table(&node, field);
  TensorSpec spec;
  spec.name = r.string(t, "name", field);
  const std::string where = field + "(" + spec.name + ")";
  if (is_input) r.only_known_keys(t, where, {"name", "dtype", "shape", "optional", "description", "dist"});
  else r.only_known_keys(t, where, {"name", "dtype", "shape", "optional", "description"});
  try {
    spec.dtype = parse_dtype(r.string(t, "dtype", where));
  } catch (const Error& e) {
    r.fail(t.get("dtype"), where + ".dtype", e.what());
  }
  spec.shape = r.strings(t.get("shape"), where + ".shape");
  if (spec.shape.empty()) r.fail(t.get("shape"), where + ".shape", "needs at least one dimension (a single value is [1])");
  spec.optional = t["optional"].value_or(false);
  spec.description = t["description"].value_or(std::string());
  if (is_input) {
    const toml::node* dist = t.get("dist");
    if (dist) {
      const auto& d = r.table(dist, where + ".dist");
      r.only_known_keys(d, where + ".dist", {"kind", "mean", "std", "lo", "hi"});
      spec.dist.kind = r.string(d, "kind", where + ".dist");
      if (!kDistributions.count(spec.dist.kind))
        r.fail(d.get("kind"), where + ".dist.kind",
               "unknown distribution '" + spec.dist.kind + "' (normal, uniform, log_uniform, neg_log_uniform, randint)");
      const bool normal = spec.dist.kind == "normal";
      // A bound is a number, or an expression over axes and params (checked on every workload once they are known).
      const auto bound = [&](const std::string& key, double& value, std::string& expression) {
        const toml::node* n = d.get(key);
        if (n && n->is_string()) expression = *n->value<std::string>();
        else if (n) value = r.number(n, where + ".dist." + key);
      };
      bound(normal ? "mean" : "lo", spec.dist.a, spec.dist.a_expr);
      if (!d.get(normal ? "std" : "hi")) r.fail(&d, where + ".dist." + (normal ? "std" : "hi"), "missing");
      bound(normal ? "std" : "hi", spec.dist.b, spec.dist.b_expr);
    } else if (spec.dtype == DType::boolean || spec.dtype == DType::u8) {
      // Their whole small range: a rounded normal would make every bool true and wrap u8's negatives.
      spec.dist = {"randint", 0, spec.dtype == DType::u8 ? 255.0 : 1.0};
    }
    if (spec.dist.a_expr.empty() && spec.dist.b_expr.empty())
      if (const std::string problem = dist_problem(spec.dist, spec.dtype); !problem.empty())
        r.fail(dist ? dist : &t, where + ".dist", problem);
  }
  return spec;
}

}  // namespace

Task load_task(const fs::path& file_in) {
  const fs::path file = fs::absolute(file_in);
  if (!fs::exists(file)) throw Error("task file not found: " + file.string());
  TomlFileReader r(file);
  const toml::table root = r.parse();

  r.only_known_keys(root, "",
                    {"task", "axes", "params", "inputs", "outputs", "tolerance", "cost", "constraints", "workloads", "entry",
                     "reference"});
  Task task;
  task.file = file;
  task.dir = file.parent_path();
  const auto& header = r.table(root.get("task"), "task");
  r.only_known_keys(header, "task", {"name", "description"});
  task.name = r.string(header, "name", "task");
  if (const std::string problem = file_name_problem(task.name); !problem.empty())
    r.fail(header.get("name"), "task.name", fmt::format("'{}' {}", task.name, problem));
  task.description = r.string(header, "description", "task", std::string());

  // Tensors, axes and params share one namespace: entry arguments and expressions name them.
  std::map<std::string, std::string> declared;  // name -> what it names
  const auto declare = [&](const std::string& name, const std::string& what, const toml::node* node, const std::string& field) {
    // Tensors, axes, params (and entry functions, below) are named in generated C, Metal and Python code.
    if (!is_identifier(name))
      r.fail(node, field, fmt::format("'{}' is not a name: tensors, axes and params are named as in C (letters, digits and "
                                      "'_', not starting with a digit)", name));
    const auto [it, fresh] = declared.emplace(name, what);
    if (!fresh)
      r.fail(node, field, fmt::format("'{}' is already the name of {} (tensors, axes and params need distinct names)", name, it->second));
  };
  const auto& axes = r.table(root.get("axes"), "axes");
  for (const auto& [key, value] : axes) {
    declare(std::string(key.str()), "an axis", &value, "axes." + std::string(key.str()));
    task.axes.emplace_back(std::string(key.str()), value.value_or(std::string()));
  }

  if (const toml::node* params = root.get("params")) {
    if (!params->is_array()) r.fail(params, "params", "expected an array of tables ([[params]])");
    for (const auto& item : *params->as_array()) {
      const auto& t = r.table(&item, "params");
      ParamSpec p;
      p.name = r.string(t, "name", "params");
      r.only_known_keys(t, "params(" + p.name + ")", {"name", "dtype", "default", "description"});
      try {
        p.dtype = parse_dtype(r.string(t, "dtype", "params(" + p.name + ")"));
      } catch (const Error& e) {
        r.fail(t.get("dtype"), "params(" + p.name + ").dtype", e.what());
      }
      if (dtype_is_float(p.dtype) && p.dtype != DType::f32 && p.dtype != DType::f64)
        r.fail(t.get("dtype"), "params(" + p.name + ").dtype", "scalar params are f32, f64, i32, i64 or bool");
      p.default_value = t.get("default") ? r.number(t.get("default"), "params(" + p.name + ").default") : 0.0;
      p.description = t["description"].value_or(std::string());
      declare(p.name, "a param", &item, "params(" + p.name + ")");
      task.params.push_back(p);
    }
  }

  for (auto [key, list] : {std::pair{"inputs", &task.inputs}, std::pair{"outputs", &task.outputs}}) {
    const toml::node* node = root.get(key);
    if (!node || !node->is_array() || node->as_array()->empty())
      r.fail(node, key, std::string("expected at least one [[") + key + "]] table");
    const bool inputs = std::string(key) == "inputs";
    for (const auto& item : *node->as_array()) {
      TensorSpec spec = read_tensor(r, item, key, inputs);
      const std::string field = std::string(key) + "(" + spec.name + ")";
      declare(spec.name, inputs ? "an input" : "an output", &item, field);
      if (spec.optional) declare("has_" + spec.name, "the presence flag of '" + spec.name + "'", &item, field);
      list->push_back(std::move(spec));
    }
  }

  // A declared shape or dist bound names only axes, params and presence flags, whatever the workload: an unknown name
  // or a syntax error is reported at the tensor's field, not at the first workload that evaluates it.
  std::map<std::string, double> every_name;
  for (const auto& [axis, _] : task.axes) every_name[axis] = 1;
  for (const auto& p : task.params) every_name[p.name] = 1;
  for (const auto* list : {&task.inputs, &task.outputs})
    for (const auto& t : *list)
      if (t.optional) every_name["has_" + t.name] = 1;
  for (auto [key, list] : {std::pair{"inputs", &task.inputs}, std::pair{"outputs", &task.outputs}})
    for (size_t i = 0; i < list->size(); ++i) {
      const TensorSpec& t = (*list)[i];
      const toml::node* shape = root.get(key)->as_array()->get(i)->as_table()->get("shape");
      for (const auto& dim : t.shape)
        if (const std::string err = validate_expression(dim, every_name); !err.empty())
          r.fail(shape, std::string(key) + "(" + t.name + ").shape", fmt::format("'{}': {}", dim, err));
      for (const std::string* bound : {&t.dist.a_expr, &t.dist.b_expr})
        if (const std::string err = bound->empty() ? "" : validate_expression(*bound, every_name); !err.empty())
          r.fail(root.get(key)->as_array()->get(i)->as_table()->get("dist"), std::string(key) + "(" + t.name + ").dist",
                 fmt::format("'{}': {}", *bound, err));
    }

  if (const toml::node* tol = root.get("tolerance")) {
    for (const auto& [key, value] : r.table(tol, "tolerance")) {
      const std::string field = "tolerance." + std::string(key.str());
      DType dtype;
      try {
        dtype = parse_dtype(key.str());
      } catch (const Error& e) {
        r.fail(&value, field, e.what());
      }
      const auto& t = r.table(&value, field);
      r.only_known_keys(t, field, {"rtol", "atol", "norm_rtol"});
      Tolerance tolerance;
      tolerance.rtol = r.number(t.get("rtol"), field + ".rtol");
      tolerance.atol = r.number(t.get("atol"), field + ".atol");
      if (t.get("norm_rtol")) tolerance.norm_rtol = r.number(t.get("norm_rtol"), field + ".norm_rtol");
      // Written so that NaN fails too: a NaN tolerance would fail every element of every candidate.
      if (!(tolerance.rtol >= 0 && tolerance.rtol < 0.5 && tolerance.atol >= 0 && std::isfinite(tolerance.atol)))
        r.fail(&value, field, "rtol must be in [0, 0.5) and atol >= 0");
      if (t.get("norm_rtol") && !(tolerance.norm_rtol >= 0 && tolerance.norm_rtol <= tolerance.rtol))
        r.fail(&value, field, "norm_rtol must be in [0, rtol]");
      task.tolerances[dtype] = tolerance;
    }
  }

  if (const toml::node* cost = root.get("cost")) {
    const auto& t = r.table(cost, "cost");
    r.only_known_keys(t, "cost", {"flops", "bytes", "transcendentals"});
    task.flops_expr = r.string(t, "flops", "cost", "0");
    task.bytes_expr = r.string(t, "bytes", "cost", "0");
    task.transcendentals_expr = r.string(t, "transcendentals", "cost", "0");
  }

  if (const toml::node* constraints = root.get("constraints")) {
    if (!constraints->is_array_of_tables()) r.fail(constraints, "constraints", "expected [[constraints]] tables");
    for (size_t i = 0; i < constraints->as_array()->size(); ++i) {
      const std::string where = fmt::format("constraints[{}]", i);
      const auto& t = *constraints->as_array()->get(i)->as_table();
      r.only_known_keys(t, where, {"check", "says"});
      Constraint c{r.string(t, "check", where), r.string(t, "says", where)};
      if (const std::string err = validate_expression(c.check, every_name); !err.empty())
        r.fail(t.get("check"), where + ".check", fmt::format("'{}' does not evaluate: {}", c.check, err));
      task.constraints.push_back(std::move(c));
    }
  }

  const toml::node* workloads = root.get("workloads");
  if (!workloads || !workloads->is_array() || workloads->as_array()->empty())
    r.fail(workloads, "workloads", "expected at least one [[workloads]] table");
  std::vector<const toml::node*> workload_nodes;  // for errors found once every workload is read
  for (const auto& item : *workloads->as_array()) {
    workload_nodes.push_back(&item);
    const auto& t = r.table(&item, "workloads");
    Workload w;
    w.name = r.string(t, "name", "workloads");
    const std::string where = "workloads(" + w.name + ")";
    if (const std::string problem = file_name_problem(w.name); !problem.empty())
      r.fail(t.get("name"), where + ".name", fmt::format("'{}' {}", w.name, problem));
    r.only_known_keys(t, where, {"name", "axes", "params", "shapes", "absent", "held_out", "backends"});
    for (const auto& [k, v] : r.table(t.get("axes"), where + ".axes")) {
      if (!task.is_axis(std::string(k.str())))
        r.fail(&v, where + ".axes." + std::string(k.str()), "not an axis declared in [axes]");
      const double value = r.number(&v, where + ".axes." + std::string(k.str()));
      if (!dimension_problem(value).empty())
        r.fail(&v, where + ".axes." + std::string(k.str()), "must be a positive integer of at most 2^53");
      w.axes[std::string(k.str())] = int64_t(value);
    }
    for (const auto& [axis, _] : task.axes)
      if (!w.axes.count(axis)) r.fail(&t, where + ".axes", "missing a value for axis '" + axis + "'");
    if (const toml::node* p = t.get("params"))
      for (const auto& [k, v] : r.table(p, where + ".params")) {
        if (!task.find_param(std::string(k.str())))
          r.fail(&v, where + ".params." + std::string(k.str()), "not a param declared in [[params]]");
        w.params[std::string(k.str())] = r.number(&v, where + ".params." + std::string(k.str()));
      }
    if (const toml::node* s = t.get("shapes"))
      for (const auto& [k, v] : r.table(s, where + ".shapes")) {
        const std::string field = where + ".shapes." + std::string(k.str());
        if (!task.find_tensor(std::string(k.str()))) r.fail(&v, field, "not a declared input or output");
        if ((w.shapes[std::string(k.str())] = r.strings(&v, field)).empty())
          r.fail(&v, field, "needs at least one dimension (a single value is [1])");
      }
    if (const toml::node* a = t.get("absent"))
      for (const auto& name : r.strings(a, where + ".absent")) {
        const TensorSpec* spec = task.find_tensor(name);
        if (!spec || !spec->optional) r.fail(a, where + ".absent", "'" + name + "' is not an optional tensor");
        w.absent.insert(name);
      }
    if (const toml::node* h = t.get("held_out")) {
      if (!h->is_boolean()) r.fail(h, where + ".held_out", "expected true or false");
      w.held_out = *h->value<bool>();
    }
    if (const toml::node* b = t.get("backends")) w.backends = r.strings(b, where + ".backends");
    for (const auto& other : task.workloads)
      if (other.name == w.name) r.fail(&t, where, "duplicate workload name");
    task.workloads.push_back(std::move(w));
  }

  // Every shape and cost expression must evaluate on every workload, visible or held out, and every dimension of a
  // present tensor be a positive integer, before any work starts.
  for (size_t i = 0; i < task.workloads.size(); ++i) {
    const Workload& w = task.workloads[i];
    const std::string where = "workloads(" + w.name + ")";
    const auto values = task.bindings(w);
    for (const auto* list : {&task.inputs, &task.outputs})
      for (const auto& t : *list)
        for (const auto& dim : dimensions(t, w)) {
          const std::string err = validate_expression(dim, values);
          if (!err.empty()) r.fail(workload_nodes[i], where, fmt::format("{} in the shape of '{}' ('{}')", err, t.name, dim));
          if (w.absent.count(t.name)) continue;
          const double value = evaluate_expression(dim, values);
          if (const std::string problem = dimension_problem(value); !problem.empty())
            r.fail(workload_nodes[i], where,
                   fmt::format("dimension '{}' of '{}' is {}, {}: a dimension is a positive integer of at most 2^53", dim,
                               t.name, value, problem));
        }
    for (const Constraint& c : task.constraints)
      if (evaluate_expression(c.check, values) == 0) {
        std::string read;
        for (const auto& name : expression_names(c.check))
          read += fmt::format("{}{} = {:g}", read.empty() ? "" : ", ", name, values.at(name));
        r.fail(workload_nodes[i], where, fmt::format("breaks the constraint '{}' ({}: {})", c.says, c.check, read));
      }
    for (const TensorSpec& t : task.inputs) {
      if (w.absent.count(t.name) || (t.dist.a_expr.empty() && t.dist.b_expr.empty())) continue;
      if (const std::string problem = dist_problem(task.dist_for(t, w), t.dtype); !problem.empty())
        r.fail(workload_nodes[i], where, fmt::format("the dist of '{}' {}", t.name, problem));
    }
    uint64_t bytes = 0;
    try {
      bytes = task.tensor_bytes(w);
    } catch (const Error& e) {
      r.fail(workload_nodes[i], where, e.what());
    }
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    if (bytes > workload_byte_limit())
      r.fail(workload_nodes[i], where,
             fmt::format("workload '{}' needs {:.1f} GiB of tensors, more than the limit {:.1f} GiB (half this machine's "
                         "memory; its inputs and outputs and the reference's double copies of them)",
                         w.name, double(bytes) / kGiB, double(workload_byte_limit()) / kGiB));
    for (const auto& [what, expr] : {std::pair{"cost.flops", task.flops_expr}, std::pair{"cost.bytes", task.bytes_expr},
                                     std::pair{"cost.transcendentals", task.transcendentals_expr}}) {
      std::string err = validate_expression(expr, values);
      if (!err.empty()) r.fail(root.get("cost"), what, fmt::format("'{}' does not evaluate: {}", expr, err));
      // The roofline divides by the ceilings and ratios are taken of it: a negative or infinite cost has no meaning.
      if (const double cost = evaluate_expression(expr, values); !(cost >= 0 && std::isfinite(cost)))
        r.fail(root.get("cost"), what, fmt::format("'{}' is {} on workload '{}': a cost is a finite number >= 0", expr, cost, w.name));
    }
  }

  const auto& entries = r.table(root.get("entry"), "entry");
  for (const auto& [backend_key, value] : entries) {
    const std::string backend(backend_key.str());
    const std::string where = "entry." + backend;
    const auto& t = r.table(&value, where);
    EntrySpec e;
    e.backend = backend;
    e.function = r.string(t, "function", where);
    if (!is_identifier(e.function))
      r.fail(t.get("function"), where + ".function", fmt::format("'{}' is not a C function name", e.function));
    e.args = r.strings(t.get("args"), where + ".args");
    for (size_t i = 0; i < e.args.size(); ++i) {
      const std::string& arg = e.args[i];
      if (!task.find_tensor(arg) && !task.is_axis(arg) && !task.find_param(arg))
        r.fail(t.get("args"), where + ".args", "'" + arg + "' is not a tensor, axis or param of the task");
      if (std::find(e.args.begin(), e.args.begin() + i, arg) != e.args.begin() + i)
        r.fail(t.get("args"), where + ".args", "'" + arg + "' is passed twice");
    }
    // A kernel can only write what it is given, and is checked on every output.
    for (const TensorSpec& output : task.outputs)
      if (std::find(e.args.begin(), e.args.end(), output.name) == e.args.end())
        r.fail(t.get("args"), where + ".args", "the output '" + output.name + "' is not passed");
    e.seed = task.dir / r.string(t, "seed", where);
    if (!fs::exists(e.seed)) r.fail(t.get("seed"), where + ".seed", "file not found: " + e.seed.string());
    for (const auto& [k, v] : t)
      if (k != "function" && k != "args" && k != "seed") {
        if (v.is_string()) e.options[std::string(k.str())] = *v.value<std::string>();
        else if (v.is_array()) {
          std::string joined;
          for (const auto& s : r.strings(&v, where + "." + std::string(k.str()))) joined += (joined.empty() ? "" : ",") + s;
          e.options[std::string(k.str())] = joined;
        } else r.fail(&v, where + "." + std::string(k.str()), "expected a string or an array of strings");
      }
    task.entries[backend] = std::move(e);
  }
  // A backend name nothing implements (a typo) would leave its workload out of every run without a word.
  for (size_t i = 0; i < task.workloads.size(); ++i)
    for (const auto& backend : task.workloads[i].backends)
      if (!task.entries.count(backend))
        r.fail(workload_nodes[i], "workloads(" + task.workloads[i].name + ").backends",
               "'" + backend + "' has no [entry." + backend + "] in this task");
  for (const auto& [backend, _] : task.entries)
    if (task.workloads_for(backend, false).empty())
      r.fail(root.get("workloads"), "workloads",
             "no visible workload runs on backend '" + backend +
                 "': a search optimizes on the visible ones (held-out ones only judge its best kernel)");

  const auto& reference = r.table(root.get("reference"), "reference");
  task.reference_source = task.dir / r.string(reference, "source", "reference");
  if (!fs::exists(task.reference_source))
    r.fail(reference.get("source"), "reference.source", "file not found: " + task.reference_source.string());

  if (const toml::node* timeout = reference.get("timeout")) {
    task.reference_timeout_s = r.number(timeout, "reference.timeout");
    if (!(task.reference_timeout_s > 0)) r.fail(timeout, "reference.timeout", "must be a positive number of seconds");
  }

  for (const auto& [key, value] : reference) {
    if (key == "source" || key == "timeout") continue;
    const std::string backend(key.str());
    const std::string where = "reference." + backend;
    if (!value.is_table()) r.fail(&value, where, "expected 'source' or a table [reference.<backend>]");
    const auto& t = *value.as_table();
    for (const auto& [field, field_value] : t)
      if (field != "source" && field != "above_flops")
        r.fail(&field_value, where + "." + std::string(field.str()), "unknown field (expected 'source' and 'above_flops')");
    // The device reference implements the backend's entry function, so that entry must exist.
    if (!task.entries.count(backend))
      r.fail(&t, where, "the task has no [entry." + backend + "] for this reference to implement");
    DeviceReferenceSpec spec;
    spec.backend = backend;
    spec.source = (task.dir / r.string(t, "source", where)).lexically_normal();
    if (!fs::exists(spec.source)) r.fail(t.get("source"), where + ".source", "file not found: " + spec.source.string());
    if (const toml::node* threshold = t.get("above_flops")) {
      spec.above_flops = r.number(threshold, where + ".above_flops");
      if (!(spec.above_flops >= 0)) r.fail(threshold, where + ".above_flops", "must be at least 0");
    }
    spec.source_hash = sha256_hex(read_file(spec.source));
    task.device_references[backend] = std::move(spec);
  }

  task.content_hash = sha256_hex(read_file(file) + "\n--\n" + read_file(task.reference_source));
  return task;
}

bool add_metal_entry_from_cuda(Task& task) {
  if (task.entries.count("metal")) return false;
  EntrySpec metal = task.entry("cuda");
  metal.backend = "metal";
  metal.seed.clear();
  metal.options.clear();
  task.entries["metal"] = metal;
  return true;
}

Task load_run_task(const fs::path& file, const std::string& backend) {
  Task task = load_task(file);
  if (backend == "metal" && task.entries.count("cuda")) add_metal_entry_from_cuda(task);
  return task;
}

}  // namespace ksearch::tasks
