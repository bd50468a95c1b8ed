#include "proposers/builtin/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "tasks/toml_file.hpp"

using ksearch::tasks::Task;
using ksearch::tasks::TensorSpec;
using ksearch::tasks::TomlFileReader;

namespace fs = std::filesystem;

namespace ksearch::proposers::builtin {

KnobValues Family::defaults() const {
  KnobValues values;
  for (const auto& k : knobs) values[k.name] = k.default_value;
  return values;
}

namespace {

const std::regex kDefine(R"(^\s*#\s*define\s+(\w+)\b(.*)$)");
// A Metal candidate's template directive (docs/METAL.md): a knob that the launch geometry uses (grid and
// threadgroup expressions see template ints, not macros) is defined here and becomes a kernel constant.
const std::regex kMetalTemplate(R"(^\s*//\s*template:\s*(\w+)\s*=(.*)$)");

// The knob definition on a line (#define NAME value, or // template: NAME = value): name and value text.
bool knob_definition(const std::string& line, std::smatch& m) {
  return std::regex_match(line, m, kDefine) || std::regex_match(line, m, kMetalTemplate);
}
const std::regex kLocalInclude(R"(^\s*#\s*include\s+"([^"]+)\".*$)");
const std::regex kPragmaOnce(R"(^\s*#\s*pragma\s+once\b.*$)");

std::string macro_of(const std::string& knob) {
  std::string upper;
  for (char c : knob) upper += char(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The text as one line: a family file wraps its paragraphs, world-model nodes and reports show them whole.
std::string one_paragraph(const std::string& text) {
  std::istringstream words(text);
  std::string out;
  for (std::string word; words >> word;) out += (out.empty() ? "" : " ") + word;
  return out;
}

// A knob's description, values and default from a table; `field` names it in errors.
Knob read_knob(const TomlFileReader& r, const toml::table& t, const std::string& name, const std::string& field) {
  r.only_known_keys(t, field, {"name", "description", "values", "default"});
  Knob k;
  k.name = name;
  k.description = r.string(t, "description", field);
  k.values = r.integers(t.get("values"), field + ".values");
  k.default_value = r.integer(t.get("default"), field + ".default");
  if (std::find(k.values.begin(), k.values.end(), k.default_value) == k.values.end())
    r.fail(t.get("default"), field + ".default", fmt::format("{} is not among the values", k.default_value));
  return k;
}

// Checks that the source defines every knob's macro exactly once, at the knob's default.
void check_knob_defines(const TomlFileReader& r, const toml::node* knobs_node, const std::vector<Knob>& knobs,
                        const fs::path& source) {
  std::map<std::string, std::vector<std::pair<int, std::string>>> defines;  // macro -> (line, value text)
  int number = 0;
  for (const auto& line : lines_of(read_file(source))) {
    ++number;
    std::smatch m;
    if (knob_definition(line, m)) defines[m[1]].push_back({number, m[2]});
  }
  for (size_t i = 0; i < knobs.size(); ++i) {
    const std::string field = fmt::format("knobs[{}]", i);
    const toml::node* node = knobs_node->as_array()->get(i);
    const std::string macro = macro_of(knobs[i].name);
    const auto it = defines.find(macro);
    if (it == defines.end() || it->second.size() != 1)
      r.fail(node, field + ".name",
             fmt::format("{} must have exactly one `#define {} {}` (or `// template: {} = {}`) line (found {})",
                         source.filename().string(), macro, knobs[i].default_value, macro, knobs[i].default_value,
                         it == defines.end() ? 0 : it->second.size()));
    const auto& [line, value] = it->second.front();
    std::string trimmed = value;
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
    if (trimmed != std::to_string(knobs[i].default_value))
      r.fail(node, field + ".default",
             fmt::format("{} is {} but {} line {} defines {} as '{}'", knobs[i].name, knobs[i].default_value,
                         source.filename().string(), line, macro, trimmed));
  }
}

// Appends `file` to `out` with its quoted includes inlined (each file once, `#pragma once` dropped);
// include paths are relative to the including file and must stay inside `root`.
void inline_includes(const fs::path& file, const fs::path& root, std::set<fs::path>& seen, std::string& out) {
  int number = 0;
  for (const auto& line : lines_of(read_file(file))) {
    ++number;
    std::smatch m;
    if (std::regex_match(line, m, kPragmaOnce)) continue;
    if (!std::regex_match(line, m, kLocalInclude)) {
      out += line + "\n";
      continue;
    }
    const fs::path header = fs::weakly_canonical(file.parent_path() / std::string(m[1]));
    const auto rel = header.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..")
      throw Error(fmt::format("{}:{}: #include \"{}\" is outside {}", file.string(), number, std::string(m[1]), root.string()));
    if (!fs::is_regular_file(header))
      throw Error(fmt::format("{}:{}: #include \"{}\": no such file", file.string(), number, std::string(m[1])));
    if (!seen.insert(header).second) continue;
    out += "// ---- " + rel.generic_string() + " ----\n";
    inline_includes(header, root, seen, out);
    out += "// ---- end of " + rel.generic_string() + " ----\n";
  }
}

}  // namespace

TemplateProvider::TemplateProvider(std::string backend, fs::path dir) : backend_(std::move(backend)), dir_(std::move(dir)) {}

const std::map<std::string, Knob>& TemplateProvider::shared_knobs() const {
  if (shared_knobs_) return *shared_knobs_;
  auto knobs = std::make_unique<std::map<std::string, Knob>>();
  const fs::path file = dir_ / "knobs.toml";
  if (fs::exists(file)) {
    const TomlFileReader r(file);
    const toml::table root = r.parse();
    for (const auto& [key, node] : root) {
      const std::string name(key.str());
      (*knobs)[name] = read_knob(r, r.table(&node, name), name, name);
    }
  }
  shared_knobs_ = std::move(knobs);
  return *shared_knobs_;
}

const std::vector<TemplateProvider::Served>& TemplateProvider::load(const std::string& task) const {
  std::lock_guard lock(mutex_);
  if (auto it = loaded_.find(task); it != loaded_.end()) return it->second;
  std::vector<Served> served;
  const fs::path folder = dir_ / task;
  std::vector<fs::path> files;
  if (fs::is_directory(folder))
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const TomlFileReader r(file);
    const toml::table root = r.parse();
    r.only_known_keys(root, "", {"title", "source", "difficulty", "expected_gain", "description", "serves", "knobs"});
    Served s;
    Family& f = s.family;
    f.name = file.stem().string();
    f.title = r.string(root, "title", "");
    f.description = one_paragraph(r.string(root, "description", ""));
    f.difficulty = int(r.integer(root.get("difficulty"), "difficulty"));
    if (f.difficulty < 1 || f.difficulty > 5) r.fail(root.get("difficulty"), "difficulty", "expected 1 to 5");
    f.expected_gain = r.number(root.get("expected_gain"), "expected_gain");
    if (!(f.expected_gain > 0)) r.fail(root.get("expected_gain"), "expected_gain", "expected a positive number");
    f.source = folder / r.string(root, "source", "");
    if (f.source.parent_path() != folder || !fs::is_regular_file(f.source))
      r.fail(root.get("source"), "source", "expected the name of a file beside " + file.filename().string());
    const toml::table& serves = r.table(root.get("serves"), "serves");
    r.only_known_keys(serves, "serves", {"args", "tensor_dtype"});
    s.args = r.strings(serves.get("args"), "serves.args");
    const std::string dtype = r.string(serves, "tensor_dtype", "serves");
    try {
      s.tensor_dtype = parse_dtype(dtype);
    } catch (const Error& e) {
      r.fail(serves.get("tensor_dtype"), "serves.tensor_dtype", e.what());
    }
    const toml::node* knobs = root.get("knobs");
    if (knobs && !knobs->is_array_of_tables()) r.fail(knobs, "knobs", "expected [[knobs]] tables");
    for (size_t i = 0; knobs && i < knobs->as_array()->size(); ++i) {
      const std::string field = fmt::format("knobs[{}]", i);
      const toml::table& t = *knobs->as_array()->get(i)->as_table();
      const std::string name = r.string(t, "name", field);
      if (t.size() == 1) {  // a knob of knobs.toml, by name alone
        const auto it = shared_knobs().find(name);
        if (it == shared_knobs().end())
          r.fail(&t, field, fmt::format("'{}' has only a name but is not defined in {}", name, (dir_ / "knobs.toml").string()));
        f.knobs.push_back(it->second);
      } else {
        f.knobs.push_back(read_knob(r, t, name, field));
      }
      for (size_t j = 0; j + 1 < f.knobs.size(); ++j)
        if (f.knobs[j].name == name) r.fail(&t, field + ".name", "'" + name + "' is listed twice");
    }
    check_knob_defines(r, knobs, f.knobs, f.source);
    served.push_back(std::move(s));
  }
  return loaded_[task] = std::move(served);
}

std::vector<std::string> TemplateProvider::tasks() const {
  std::vector<std::string> out;
  for (const auto& folder : fs::directory_iterator(dir_)) {
    if (!folder.is_directory()) continue;
    for (const auto& e : fs::directory_iterator(folder.path()))
      if (e.path().extension() == ".toml") {
        out.push_back(folder.path().filename().string());
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Family> TemplateProvider::families(const Task& task) const {
  std::vector<Family> out;
  const auto entry = task.entries.find(backend_);
  if (entry == task.entries.end()) return out;
  for (const Served& s : load(task.name)) {
    // A user task that reuses a built-in name with another signature or dtype is not what the template implements.
    if (s.args != entry->second.args) continue;
    const auto other_dtype = [&](const TensorSpec& t) { return t.dtype != s.tensor_dtype; };
    if (std::any_of(task.inputs.begin(), task.inputs.end(), other_dtype) ||
        std::any_of(task.outputs.begin(), task.outputs.end(), other_dtype))
      continue;
    out.push_back(s.family);
  }
  return out;
}

std::string TemplateProvider::render(const Task& task, const std::string& family, const KnobValues& knobs) const {
  const auto all = families(task);
  if (all.empty()) throw Error(fmt::format("no {} template families for task '{}'", backend_, task.name));
  const auto f = std::find_if(all.begin(), all.end(), [&](const Family& x) { return x.name == family; });
  if (f == all.end()) throw Error(fmt::format("task '{}' has no {} template family '{}'", task.name, backend_, family));
  KnobValues values = f->defaults();
  for (const auto& [name, value] : knobs) {
    auto k = std::find_if(f->knobs.begin(), f->knobs.end(), [&](const Knob& x) { return x.name == name; });
    if (k == f->knobs.end()) throw Error(fmt::format("family '{}' of task '{}' has no knob '{}'", family, task.name, name));
    if (std::find(k->values.begin(), k->values.end(), value) == k->values.end())
      throw Error(fmt::format("knob '{}' of family '{}' does not allow {} (allowed: {})", name, family, value,
                              fmt::join(k->values, ", ")));
    values[name] = value;
  }
  std::map<std::string, int64_t> macros;
  for (const auto& [name, value] : values) macros[macro_of(name)] = value;

  std::set<fs::path> seen = {fs::weakly_canonical(f->source)};
  std::string body;
  inline_includes(f->source, fs::weakly_canonical(dir_), seen, body);
  std::string out = fmt::format("// ksearch built-in template {}/{}/{}\n", backend_, task.name, family);
  for (const auto& line : lines_of(body)) {
    std::smatch m;
    if (std::regex_match(line, m, kDefine) && macros.count(m[1]))
      out += fmt::format("#define {} {}\n", std::string(m[1]), macros.at(m[1]));
    else if (std::regex_match(line, m, kMetalTemplate) && macros.count(m[1]))
      out += fmt::format("// template: {} = {}\n", std::string(m[1]), macros.at(m[1]));
    else
      out += line + "\n";
  }
  return out;
}

std::shared_ptr<TemplateProvider> provider_for(const std::string& backend) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<TemplateProvider>> providers;
  std::lock_guard lock(mutex);
  auto& provider = providers[backend];
  if (!provider && fs::is_directory(data_path("templates") / backend))
    provider = std::make_shared<TemplateProvider>(backend, data_path("templates") / backend);
  return provider;
}

std::vector<Family> families_for(const Task& task, const std::string& backend) {
  auto provider = provider_for(backend);
  return provider ? provider->families(task) : std::vector<Family>{};
}

std::string template_example(const Task& task, const std::string& backend) {
  const auto families = families_for(task, backend);
  const auto best = std::max_element(families.begin(), families.end(),
                                     [](const Family& a, const Family& b) { return a.expected_gain < b.expected_gain; });
  return best == families.end() ? std::string() : provider_for(backend)->render(task, best->name, best->defaults());
}

}  // namespace ksearch::proposers::builtin
