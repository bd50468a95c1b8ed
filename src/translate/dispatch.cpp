// Alternative launches (docs/TRANSLATE.md): launches in the branches of an if or the cases of a
// switch of the entry (or of its launcher) are one choice, and the candidate is one kernel whose
// directives choose the same way per workload, the bodies alternatives under a KS_LAUNCH template.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/error.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// The choice among the launches inside `statement` (null when it has none): an if whose branches
// both launch chooses by its condition, a switch by its cases (the default last; without one, the
// last case stands for every other value, as a dropped guard does), a case's statements as a block does; the
// launches of one launcher call by its branches (`nested`). Throws Error saying why the launches are not
// alternatives (in sequence, falling through a case, ...).
std::shared_ptr<Translator::Choice> Translator::choice_in(CXCursor statement, const std::vector<CXCursor>& launches,
                                                          const NestedChoice& nested) {
  auto launches_in = [&](unsigned b, unsigned e) {
    std::vector<int> out;
    for (size_t i = 0; i < launches.size(); ++i)
      if (!clang_Cursor_isNull(launches[i]) && begin_offset(launches[i]) >= b && end_offset(launches[i]) <= e) out.push_back(int(i));
    return out;
  };
  auto leaf = [](int launch) {
    auto c = std::make_shared<Choice>();
    c->launch = launch;
    return c;
  };
  auto choose = [](std::string condition, std::shared_ptr<Choice> then, std::shared_ptr<Choice> otherwise) {
    auto c = std::make_shared<Choice>();
    c->condition = std::move(condition);
    c->then = std::move(then);
    c->otherwise = std::move(otherwise);
    return c;
  };
  auto in_sequence = [&](const std::vector<int>& inside) {
    return Error(fmt::format("the launches at lines {} and {} run one after the other in a branch of a choice between "
                             "launches: a choice is translated when each of its branches makes one launch",
                             position(launches[size_t(inside[0])]).line, position(launches[size_t(inside[1])]).line));
  };
  const std::vector<int> inside = launches_in(begin_offset(statement), end_offset(statement));
  if (inside.size() <= 1) return inside.empty() ? nullptr : leaf(inside[0]);
  // Several launches at one place: one launcher call, whose branches choose among them.
  if (nested && std::all_of(inside.begin(), inside.end(), [&](int i) { return clang_equalCursors(launches[size_t(i)], launches[size_t(inside[0])]); }))
    return nested(inside);
  const CXCursorKind kind = clang_getCursorKind(statement);
  const std::vector<CXCursor> kids = children(statement);
  // Statements in order (a block's, a switch arm's): the launches must be in one of them, or in an if that returns
  // (`if (small) { k1<<<...>>>(...); return; }`) and the statements after it, which are its else.
  std::function<std::shared_ptr<Choice>(const std::vector<CXCursor>&, size_t)> in_order =
      [&](const std::vector<CXCursor>& list, size_t from) -> std::shared_ptr<Choice> {
    for (size_t i = from; i < list.size(); ++i) {
      if (launches_in(begin_offset(list[i]), end_offset(list[i])).empty()) continue;
      const bool later = !launches_in(end_offset(list[i]), end_offset(list.back())).empty();
      if (!later) return choice_in(list[i], launches, nested);
      const std::vector<CXCursor> branches = children(list[i]);
      const bool returning_if = clang_getCursorKind(list[i]) == CXCursor_IfStmt && branches.size() == 2 &&
                                clang_isExpression(clang_getCursorKind(branches[0])) &&
                                (clang_getCursorKind(branches[1]) == CXCursor_ReturnStmt ||
                                 (!children(branches[1]).empty() && clang_getCursorKind(children(branches[1]).back()) == CXCursor_ReturnStmt));
      if (!returning_if) throw in_sequence(launches_in(begin_offset(list[i]), end_offset(list.back())));
      auto then = choice_in(branches[1], launches, nested);
      return then ? choose(directive_expression(branches[0], host_), then, in_order(list, i + 1)) : in_order(list, i + 1);
    }
    return nullptr;
  };
  if (kind == CXCursor_IfStmt) {
    if (kids.size() != 3 || !clang_isExpression(clang_getCursorKind(kids[0])))
      throw Error(fmt::format("line {}: an if with an initializer or a declaration as its condition chooses the launch; "
                              "write the condition as an expression", position(statement).line));
    auto then = choice_in(kids[1], launches, nested), otherwise = choice_in(kids[2], launches, nested);
    if (!then || !otherwise) return then ? then : otherwise;  // a branch that launches nothing: a dropped guard
    return choose(directive_expression(kids[0], host_), then, otherwise);
  }
  if (kind == CXCursor_SwitchStmt) {
    struct Arm {
      std::vector<std::string> labels;  // directive expressions of its case values
      bool is_default = false, ended = false;
      std::vector<CXCursor> statements;
    };
    std::vector<Arm> arms;
    const std::string value = directive_expression(kids.at(0), host_);
    for (CXCursor k : children(kids.back())) {
      CXCursor c = k;
      const bool label = clang_getCursorKind(c) == CXCursor_CaseStmt || clang_getCursorKind(c) == CXCursor_DefaultStmt;
      if (label && (arms.empty() || !arms.back().statements.empty())) {
        if (!arms.empty() && !arms.back().ended &&
            !launches_in(begin_offset(arms.back().statements.front()), end_offset(arms.back().statements.back())).empty())
          throw Error(fmt::format("line {}: a case that launches falls through into the next one", position(c).line));
        arms.push_back({});
      }
      for (; clang_getCursorKind(c) == CXCursor_CaseStmt || clang_getCursorKind(c) == CXCursor_DefaultStmt; c = children(c).back()) {
        if (clang_getCursorKind(c) == CXCursor_DefaultStmt) arms.back().is_default = true;
        else arms.back().labels.push_back("(" + value + ") == (" + directive_expression(children(c).at(0), host_) + ")");
      }
      if (arms.empty()) continue;
      Arm& arm = arms.back();
      // (a break or return ends it, also as a braced case's last statement)
      std::function<bool(CXCursor)> ends = [&](CXCursor s) {
        const CXCursorKind k = clang_getCursorKind(s);
        return k == CXCursor_BreakStmt || k == CXCursor_ReturnStmt || (k == CXCursor_CompoundStmt && !children(s).empty() && ends(children(s).back()));
      };
      if (ends(c)) arm.ended = true;
      arm.statements.push_back(c);
    }
    // The default is the last alternative; the others in order.
    std::stable_partition(arms.begin(), arms.end(), [](const Arm& a) { return !a.is_default; });
    std::shared_ptr<Choice> choice;
    for (auto arm = arms.rbegin(); arm != arms.rend(); ++arm) {
      std::shared_ptr<Choice> launched = arm->statements.empty() ? nullptr : in_order(arm->statements, 0);
      if (!launched) continue;
      std::string condition;
      for (const auto& l : arm->labels) condition += (condition.empty() ? "" : " || ") + l;
      choice = !choice || arm->is_default ? launched : choose("(" + condition + ")", launched, choice);
    }
    return choice;
  }
  return in_order(kids, 0);
}

std::shared_ptr<Translator::Choice> Translator::pointer_choice(CXCursor launch_call, std::vector<CXCursor>& kernels) {
  const CXCursor variable = clang_getCursorReferenced(launch_call);
  if (clang_getCursorKind(variable) != CXCursor_VarDecl || host_.assignments.count(decl_key(variable))) return nullptr;
  std::function<std::shared_ptr<Choice>(CXCursor)> choice_of = [&](CXCursor e) -> std::shared_ptr<Choice> {
    e = strip_casts(e);
    while (clang_getCursorKind(e) == CXCursor_UnaryOperator && !children(e).empty()) e = strip_casts(children(e)[0]);  // `&k`
    if (clang_getCursorKind(e) == CXCursor_ConditionalOperator) {
      const std::vector<CXCursor> parts = children(e);
      if (parts.size() != 3) return nullptr;
      auto c = std::make_shared<Choice>();
      try {
        c->condition = directive_expression(parts[0], host_);
      } catch (const Error&) {
        return nullptr;
      }
      c->then = choice_of(parts[1]);
      c->otherwise = choice_of(parts[2]);
      return c->then && c->otherwise ? c : nullptr;
    }
    const CXCursor kernel = clang_getCursorReferenced(e);
    if (clang_getCursorKind(e) != CXCursor_DeclRefExpr || clang_getCursorKind(kernel) != CXCursor_FunctionDecl ||
        !has_child(defining_cursor(kernel), CXCursor_CUDAGlobalAttr))
      return nullptr;
    auto leaf = std::make_shared<Choice>();
    leaf->launch = int(kernels.size());
    kernels.push_back(kernel);
    return leaf;
  };
  const CXCursor initializer = clang_Cursor_getVarDeclInitializer(variable);
  if (clang_Cursor_isNull(initializer) || clang_getCursorKind(strip_casts(initializer)) != CXCursor_ConditionalOperator) return nullptr;
  auto choice = choice_of(initializer);
  if (!choice) kernels.clear();
  return choice;
}

// The entry's alternative launches as one kernel: each directive chooses its value per workload by
// the entry's conditions; the kernels' bodies are alternatives under a template KS_LAUNCH (one body
// when every alternative runs the same kernel with the same arguments).
std::string Translator::dispatch_candidate() {
  std::vector<int> body_of(launches_.size());
  std::vector<size_t> bodies;  // the launch whose body each body is
  for (size_t i = 0; i < launches_.size(); ++i) {
    auto same = std::find_if(bodies.begin(), bodies.end(), [&](size_t j) {
      return launches_[j].kernel == launches_[i].kernel && launches_[j].bindings == launches_[i].bindings;
    });
    body_of[i] = int(same - bodies.begin());
    if (same == bodies.end()) bodies.push_back(i);
  }
  auto each = [&](const std::function<std::string(const Launch&)>& value) {
    return dispatch_->render([&](int i) { return value(launches_[size_t(i)]); });
  };
  std::string out = "// grid: ";
  for (size_t d = 0; d < 3; ++d)
    out += (d ? ", " : "") + each([d](const Launch& l) { return "(" + l.blocks[d] + ") * (" + l.threads[d] + ")"; });
  out += "\n// threadgroup: ";
  for (size_t d = 0; d < 3; ++d) out += (d ? ", " : "") + each([d](const Launch& l) { return l.threads[d]; });
  out += "\n";
  const bool dynamic = std::any_of(launches_.begin(), launches_.end(), [](const Launch& l) { return !l.shared_bytes.empty(); });
  if (dynamic)
    out += "// template: KS_DYNAMIC_SHARED_BYTES = max(" +
           each([](const Launch& l) { return l.shared_bytes.empty() ? std::string("0") : l.shared_bytes; }) + ", 16)\n";
  // A template argument an alternative does not give takes the first given value (its kernel does not use it).
  std::vector<Launch::TemplateArgument> names;
  for (const auto& l : launches_)
    for (const auto& a : l.templates)
      if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.name == a.name; })) names.push_back(a);
  for (const auto& first : names) {
    auto value_in = [&first](const Launch& l) {
      for (const auto& a : l.templates)
        if (a.name == first.name) return a.value;
      return first.value;
    };
    if (first.typed) {
      for (const auto& l : launches_)
        if (value_in(l) != first.value)
          problem(out_.problems, l.call, "alternative launches in branches of the entry",
                  "the alternatives give the type template parameter '" + first.name +
                      "' different types: a directive chooses integers, not types");
      out += fmt::format("// template: {} = {}\n", first.name, first.value);
    } else {
      out += fmt::format("// template: {} = {}\n", first.name, each(value_in));
    }
  }
  if (bodies.size() > 1) out += "// template: KS_LAUNCH = " + each([&](const Launch& l) { return std::to_string(body_of[size_t(&l - launches_.data())]); }) + "\n";
  // (a cudaMemset before the alternatives: each writes the buffer, with the same initial value)
  const auto initialized = std::find_if(launches_.begin(), launches_.end(), [](const Launch& l) { return !l.init_value.empty(); });
  if (initialized != launches_.end()) out += "// init_value: " + initialized->init_value + "\n";
  out += header() + "// --- body ---\n";
  if (bodies.size() == 1) return out + kernel_body(functions_.at(launches_[0].kernel), launches_[0].bindings);
  for (size_t b = 0; b < bodies.size(); ++b)
    out += fmt::format("if (KS_LAUNCH == {}) {{\n{}}}\n", b,
                       kernel_body(functions_.at(launches_[bodies[b]].kernel), launches_[bodies[b]].bindings));
  return out;
}

}  // namespace ksearch::translate::detail
