// Device lambdas (docs/TRANSLATE.md). The Metal Shading Language has none: each becomes a
// function-object struct (KsLambda<line>_<variable>) that the header declares before the declaration
// holding it, built where the lambda was. Captures keep their address space (value members,
// thread or threadgroup references, pointers typed by their value, constants as static members); the
// enclosing templates' parameters are the struct's; what has no single space is refused at its line.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// A lambda expression: its capture list and signature are read here and its body is visited as code of the function
// holding it; the struct and the value that replaces it are written once every function is visited
// (resolve_lambdas), when the address spaces of what it captures and of what its calls pass are known.
void Translator::visit_lambda(CXCursor expr, Function& fn) {
  if (visiting_.empty())  // (a default member initializer: check_records)
    return problem(fn.record.problems, expr, "lambda in a default member initializer",
                   "the port writes a lambda as a struct declared before the function holding it, and a member's "
                   "initializer is in none: initialize the member in a constructor");
  Lambda lambda;
  lambda.expr = expr;
  lambda.owner = visiting_;
  const std::string& t = rw_.text();
  const unsigned b = begin_offset(expr), e = end_offset(expr);
  auto matching = [&](unsigned open) {  // the bracket closing the one at `open`
    unsigned at = open;
    for (int depth = 0; at < e; ++at) {
      depth += std::string("[({").find(t[at]) != std::string::npos ? 1 : std::string("])}").find(t[at]) != std::string::npos ? -1 : 0;
      if (depth == 0) break;
    }
    return at;
  };
  auto trimmed = [&](unsigned from, unsigned to) {
    while (from < to && std::isspace(static_cast<unsigned char>(t[from]))) ++from;
    while (to > from && std::isspace(static_cast<unsigned char>(t[to - 1]))) --to;
    return std::make_pair(from, to);
  };
  // The capture list: `[&]`, `[=, &acc]`, `[v = x * 2]`.
  const unsigned captures_end = matching(b);
  for (unsigned item = b + 1, at = b + 1; at <= captures_end; ++at) {
    if (at < captures_end && t[at] != ',') {
      if (std::string("[({").find(t[at]) != std::string::npos) at = matching(at);
      continue;
    }
    const auto [from, to] = trimmed(item, at);
    item = at + 1;
    const std::string capture = t.substr(from, to - from);
    if (capture.empty() || capture == "=") continue;
    if (capture == "&") {
      lambda.by_reference = true;
    } else if (capture == "this" || capture == "*this") {
      return problem(fn.record.problems, expr, "lambda capturing this",
                     "a lambda capturing its method's object is not translated: pass the object (or the members it uses) as "
                     "arguments");
    } else if (const size_t assign = capture.find('='); assign != std::string::npos) {
      const auto [name_b, name_e] = trimmed(from, from + unsigned(assign));
      if (t[name_b] == '&')
        return problem(fn.record.problems, expr, "lambda init capture by reference",
                       "a reference initialized in the capture list ('" + capture + "') is not translated: capture the variable by reference");
      lambda.init_captures.push_back({t.substr(name_b, name_e - name_b), trimmed(from + unsigned(assign) + 1, to)});
    } else {
      const bool reference = capture[0] == '&';
      const auto [name_b, name_e] = trimmed(from + (reference ? 1 : 0), to);
      lambda.explicit_captures[t.substr(name_b, name_e - name_b)] = reference;
    }
  }
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(expr)) {
    if (clang_getCursorKind(k) == CXCursor_ParmDecl) lambda.params.push_back(k);
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  }
  // The parameters in parentheses (none without them), then `mutable` and a return type after `->`.
  const size_t open = t.find('(', captures_end);
  unsigned after_params = captures_end + 1;
  if (open != std::string::npos && open < begin_offset(body)) {
    after_params = matching(unsigned(open)) + 1;
    lambda.params_b = unsigned(open) + 1;
    lambda.params_e = after_params - 1;
  }
  const std::string specifiers = t.substr(after_params, begin_offset(body) - after_params);
  lambda.is_mutable = specifiers.find("mutable") != std::string::npos;
  if (const size_t arrow = specifiers.find("->"); arrow != std::string::npos)
    std::tie(lambda.return_b, lambda.return_e) = trimmed(after_params + unsigned(arrow) + 2, begin_offset(body));
  for (CXCursor p : lambda.params)
    if (group_of(clang_getCursorType(p)).kind != Group::none)
      return problem(fn.record.problems, p, "cooperative-groups handle as a lambda parameter",
                     "group handles are dropped, and a lambda's calls are not rewritten to match: capture the handle instead");
  // A use of its method's object (`this->x`, a member named alone): Metal's struct would need a pointer to it.
  bool uses_this = false;
  clang_visitChildren(
      body,
      [](CXCursor c, CXCursor, CXClientData data) {
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_CXXThisExpr || (kind == CXCursor_MemberRefExpr && children(c).empty())) *static_cast<bool*>(data) = true;
        return CXChildVisit_Recurse;
      },
      &uses_this);
  if (uses_this)
    return problem(fn.record.problems, expr, "lambda capturing this",
                   "a lambda using its method's object (`this`, a member named alone) is not translated: pass the object (or "
                   "the members it uses) as arguments");
  lambda.call_templates = parameter_templates(lambda.params, fn);
  // A generic lambda's `auto` parameters: its operator() is a template.
  for (CXCursor p : lambda.params) {
    if (is_pointer(clang_getCursorType(p))) continue;
    const unsigned type_b = begin_offset(p), type_e = spelling(p).empty() ? end_offset(p) : position(p).offset;
    for (size_t at = t.find("auto", type_b); at != std::string::npos && at + 4 <= type_e; at = t.find("auto", at + 4)) {
      auto word = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_'; };
      if ((at > 0 && word(at - 1)) || word(at + 4)) continue;
      const std::string name = fmt::format("KsAuto{}", lambda.call_templates.size());
      lambda.call_templates.push_back(name);
      rw_.replace(unsigned(at), unsigned(at + 4), name);
    }
  }
  // The variables of the enclosing code its body names: each becomes a member (a file-scope extern __shared__ array
  // too, which the kernel declares).
  std::pair<Translator*, Lambda*> search(this, &lambda);
  clang_visitChildren(
      body,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto [self, l] = *static_cast<std::pair<Translator*, Lambda*>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        const CXCursor decl = clang_getCursorReferenced(c);
        const CXCursorKind kind = clang_getCursorKind(decl), parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
        const bool inside = begin_offset(decl) >= begin_offset(l->expr) && begin_offset(decl) < end_offset(l->expr);
        const bool local = parent != CXCursor_TranslationUnit && parent != CXCursor_Namespace && parent != CXCursor_UnexposedDecl;
        const bool dynamic_shared = std::any_of(self->dynamic_shared_.begin(), self->dynamic_shared_.end(),
                                                [&](CXCursor d) { return clang_equalCursors(d, decl); });
        if ((kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl) && !inside && (local || dynamic_shared) &&
            group_of(clang_getCursorType(decl)).kind == Group::none &&
            std::none_of(l->captured.begin(), l->captured.end(), [&](CXCursor v) { return clang_equalCursors(v, decl); }))
          l->captured.push_back(decl);
        return CXChildVisit_Recurse;
      },
      &search);
  // Its body is code of the function holding it; its init captures' expressions are evaluated where it is.
  Function inner{expr};
  inner.kernel = fn.kernel;
  visit(body, inner);
  for (CXCursor k : children(expr))
    for (const auto& [name, range] : lambda.init_captures)
      if (clang_isExpression(clang_getCursorKind(k)) && begin_offset(k) >= range.first && end_offset(k) <= range.second) visit(k, fn);
  for (const auto& [construct, count] : inner.record.translated) fn.record.translated[construct] += count;
  fn.record.problems.insert(fn.record.problems.end(), inner.record.problems.begin(), inner.record.problems.end());
  fn.builtins.insert(inner.builtins.begin(), inner.builtins.end());
  fn.shared.insert(inner.shared.begin(), inner.shared.end());
  fn.callees.insert(inner.callees.begin(), inner.callees.end());
  fn.pointer_choices.insert(fn.pointer_choices.end(), inner.pointer_choices.begin(), inner.pointer_choices.end());
  for (CXCursor d : inner.dynamic_shared)
    if (std::none_of(fn.dynamic_shared.begin(), fn.dynamic_shared.end(), [&](CXCursor k) { return clang_equalCursors(k, d); }))
      fn.dynamic_shared.push_back(d);
  lambda.body = std::move(inner);
  ++fn.record.translated["lambda expression (function object)"];
  // Its struct is named after its line and the variable it initializes, and goes before the top-level declaration
  // holding it (a method's struct).
  const Position at = position(expr);
  lambda.name = fmt::format("KsLambda{}", at.line);
  if (const auto v = lambda_variables_.find(b); v != lambda_variables_.end()) {
    lambda.variable = decl_key(v->second);
    lambda.name += "_" + spelling(v->second);
  }
  const auto taken = [&](const std::string& name) {
    return std::any_of(lambdas_.begin(), lambdas_.end(), [&](const Lambda& other) { return other.name == name; });
  };
  if (taken(lambda.name)) lambda.name += fmt::format("_{}", at.column);
  lambda.anchor = file_level_declaration(functions_.at(visiting_).cursor);
  rw_.replace(b, e, [this, index = lambdas_.size()] { return lambda_site(lambdas_[index]); });
  lambdas_.push_back(std::move(lambda));
}

bool Translator::is_device_lambda(CXCursor lambda) const {
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(lambda))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  const std::string& t = rw_.text();
  if (clang_Cursor_isNull(body)) return false;
  const std::string head = t.substr(begin_offset(lambda), begin_offset(body) - begin_offset(lambda));
  for (size_t at = head.find("__device__"); at != std::string::npos; at = head.find("__device__", at + 1))
    if ((at == 0 || !(std::isalnum(static_cast<unsigned char>(head[at - 1])) || head[at - 1] == '_')) &&
        (at + 10 >= head.size() || !(std::isalnum(static_cast<unsigned char>(head[at + 10])) || head[at + 10] == '_')))
      return true;
  return false;
}

std::string Translator::host_lambda(CXCursor argument, const std::string& kernel) {
  // (a closure is copied by its constructor: a call of one argument)
  auto unwrapped = [](CXCursor e) {
    for (e = strip_casts(e); clang_getCursorKind(e) == CXCursor_CallExpr && children(e).size() == 1;) e = strip_casts(children(e)[0]);
    return e;
  };
  CXCursor expr = unwrapped(argument);
  // (a launcher's parameter: the argument its call passes)
  if (clang_getCursorKind(expr) == CXCursor_DeclRefExpr) {
    const auto use = launcher_call_.uses.find(decl_key(clang_getCursorReferenced(expr)));
    if (use != launcher_call_.uses.end() && !clang_Cursor_isNull(use->second.argument)) expr = unwrapped(use->second.argument);
  }
  if (clang_getCursorKind(expr) == CXCursor_DeclRefExpr) {
    const CXCursor variable = clang_getCursorReferenced(expr);
    if (clang_getCursorKind(variable) != CXCursor_VarDecl || host_.assignments.count(decl_key(variable))) return "";
    expr = unwrapped(clang_Cursor_getVarDeclInitializer(variable));
    lambda_variables_[begin_offset(expr)] = variable;
  }
  if (clang_getCursorKind(expr) != CXCursor_LambdaExpr || !is_device_lambda(expr) || !functions_.count(kernel)) return "";
  // Visited once, as code of the kernel receiving it; its text in the entry becomes its struct's value.
  if (std::none_of(lambdas_.begin(), lambdas_.end(), [&](const Lambda& l) { return clang_equalCursors(l.expr, expr); })) {
    const std::string outer = visiting_;
    visiting_ = kernel;
    const size_t before = lambdas_.size();
    visit_lambda(expr, functions_.at(kernel));
    visiting_ = outer;
    if (lambdas_.size() == before) return "";  // refused, with its problem
    lambdas_.back().host = true;
    resolve_lambda(lambdas_.back());
  }
  return rw_.render(begin_offset(expr), end_offset(expr));
}

// The name code of the body gives a variable: a kernel parameter's binding, a Metal keyword's replacement.
std::string Translator::body_name(CXCursor variable) const {
  if (const auto r = param_renames_.find(decl_key(variable)); r != param_renames_.end()) return r->second;
  // (an entry parameter a host lambda captures: the task's name, which the entry's uses were renamed to)
  if (const auto p = host_.parameters.find(decl_key(variable)); p != host_.parameters.end() && !host_.assignments.count(decl_key(variable)))
    return p->second;
  if (const auto r = keyword_renames_.find(spelling(variable)); r != keyword_renames_.end()) return r->second;
  return spelling(variable);
}

// Each lambda's members, once every function is visited: what it captures, in the address space it is in, and the
// built-in variables and hoisted __shared__ arrays its body (and what it calls) names, which the struct cannot see;
// the space each reference parameter binds at its calls. What has no single space is reported at the lambda's line.
void Translator::resolve_lambdas() {
  for (Lambda& lambda : lambdas_)
    if (!lambda.host) resolve_lambda(lambda);  // (a host lambda is resolved where a launch passes it: host_lambda)
}

void Translator::resolve_lambda(Lambda& lambda) {
  std::vector<Problem>& problems = functions_.at(lambda.owner).record.problems;
  const std::string& t = rw_.text();
  for (size_t i = 0; i < lambda.params.size(); ++i) {
    if (!is_reference(clang_getCursorType(lambda.params[i]))) continue;
    std::set<std::string> spaces;
    for (const auto& call : lambda_calls_[lambda.variable])
      if (i < call.size()) spaces.merge(resolved_spaces(call[i]));
    if (spaces.size() > 1)
      problem(problems, lambda.params[i], "lambda reference parameter '" + spelling(lambda.params[i]) + "'",
              fmt::format("its calls bind it to {} memory, and a Metal reference names one address space: take it by value, "
                          "or write a __device__ function (the port overloads those per space)",
                          fmt::join(spaces, " and ")));
    else if (spaces.size() == 1)
      reference_spaces_[decl_key(lambda.params[i])] = *spaces.begin();
  }
  // The enclosing function's (and class's) template parameters: the struct takes them, as its members' types may
  // name them.
  // (none for a host lambda: the kernel receiving it is not where it is made)
  std::vector<CXCursor> scopes;
  for (CXCursor s = functions_.at(lambda.owner).cursor;
       !lambda.host && !clang_equalCursors(s, clang_getCursorSemanticParent(lambda.anchor)); s = clang_getCursorSemanticParent(s))
    scopes.insert(scopes.begin(), s);
  for (CXCursor scope : scopes)
    for (CXCursor k : children(scope)) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if ((kind != CXCursor_TemplateTypeParameter && kind != CXCursor_NonTypeTemplateParameter) || spelling(k).empty()) continue;
      lambda.outer_templates.push_back(rw_.render(begin_offset(k), position(k).offset + unsigned(spelling(k).size())));
      lambda.outer_names.push_back(spelling(k));
    }
  // The type of a variable's value in the struct: canonical where it names no template parameter, else as written.
  auto value_type = [this](CXType type) {
    if (take(clang_getTypeSpelling(clang_getCanonicalType(type))).find("type-parameter") == std::string::npos) return unqualified_type(type);
    std::string written = metal_type(type);
    return written.rfind("const ", 0) == 0 ? written.substr(6) : written;
  };
  // An array's dimensions as declared (`[32]`, `[BLOCK / 32][33]`), after its name.
  auto dimensions = [&](CXCursor variable) {
    const unsigned from = position(variable).offset + unsigned(spelling(variable).size());
    unsigned to = from;
    for (size_t open = to; (open = t.find_first_not_of(" \t", to)) != std::string::npos && t[open] == '[';)
      to = unsigned(t.find(']', open)) + 1;
    return rw_.render(from, to);
  };
  // A member whose type is a template parameter of the struct, given `type_argument` where the lambda was.
  int templated = 0;
  auto templated_member = [&](const std::string& type_argument, bool reference, const std::string& name) {
    const std::string parameter = fmt::format("KsCapture{}", templated++);
    lambda.members.push_back({(reference ? "thread " + parameter + "& " : parameter + " ") + name + ";", name, type_argument});
  };
  for (CXCursor v : lambda.captured) {
    const std::string key = decl_key(v), name = body_name(v), written = spelling(v);
    const CXType type = clang_getCursorType(v), canonical = clang_getCanonicalType(type);
    const auto listed = lambda.explicit_captures.find(written);
    const bool by_reference = listed != lambda.explicit_captures.end() ? listed->second : lambda.by_reference;
    const bool kernel_parameter = clang_getCursorKind(v) == CXCursor_ParmDecl && functions_.at(lambda.owner).kernel;
    const bool array = canonical.kind == CXType_ConstantArray || canonical.kind == CXType_IncompleteArray ||
                       canonical.kind == CXType_DependentSizedArray;
    CXType element = type;
    while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
    CXCursor init = clang_getNullCursor();
    for (CXCursor k : children(v))
      if (clang_isExpression(clang_getCursorKind(k))) init = k;
    const CXEvalResult value = clang_Cursor_isNull(init) || clang_getCursorKind(v) != CXCursor_VarDecl ? nullptr : clang_Cursor_Evaluate(init);
    const CXEvalResultKind value_kind = value ? clang_EvalResult_getKind(value) : CXEval_UnExposed;
    const bool constexpr_written = text(begin_offset(v), position(v).offset).find("constexpr") != std::string::npos;
    auto [space, spaced] = spaces_.count(key) ? std::pair(spaces_.at(key), true) : std::pair(std::string("thread"), false);
    if (lambda.host) {
      // The entry's value where the lambda is made: a task name, or a local's value (the kernel body's text).
      if (by_reference)
        problem(problems, lambda.expr, "host lambda capture of '" + written + "' by reference",
                "a lambda the host makes for a kernel cannot refer to the host's variables: capture by copy (`[=]`)");
      const CXCursor init = clang_Cursor_getVarDeclInitializer(v);
      if (!clang_Cursor_isNull(init) && host_calls_.insert(begin_offset(v)).second) map_host_calls(init);  // (`sqrtf(2.f)`)
      const std::string value = host_.parameters.count(key) && !host_.assignments.count(key)
                                    ? host_.parameters.at(key)
                                    : host_value(v, begin_offset(lambda.expr));
      if (is_pointer(type)) {
        templated_member("decltype((" + value + ") + 0)", false, name);
        lambda.members.back().init = value;
      } else {
        lambda.members.push_back({fmt::format("{} {};", value_type(type), name), value, ""});
      }
    } else if (spaced && space == "threadgroup") {
      // __shared__ memory (static storage in CUDA: named, never copied, whatever the capture list says).
      if (canonical.kind == CXType_IncompleteArray || clang_Cursor_getStorageClass(v) == CX_SC_Extern)
        lambda.members.push_back({fmt::format("threadgroup {}* {};", metal_type(element), name), name, ""});
      else if (array)
        lambda.members.push_back({fmt::format("threadgroup {} (&{}){};", metal_type(element), name, dimensions(v)), name, ""});
      else
        lambda.members.push_back({fmt::format("threadgroup {}& {};", metal_type(type), name), name, ""});
    } else if (clang_isConstQualifiedType(type) && canonical.kind >= CXType_Bool && canonical.kind <= CXType_LongDouble &&
               (constexpr_written || value_kind == CXEval_Int || value_kind == CXEval_Float)) {
      // A constant: the struct's own, so that constant expressions in the body (sizes, template arguments) keep it.
      std::string constant = value_kind == CXEval_Int ? std::to_string(clang_EvalResult_getAsLongLong(value))
                             : value_kind == CXEval_Float
                                 ? fmt::format("{}f", float(clang_EvalResult_getAsDouble(value)))
                                 : rw_.render(begin_offset(init), end_offset(init));
      lambda.members.push_back({fmt::format("static constant constexpr {} {} = {};", value_type(type), name, constant), "", ""});
    } else if (array) {
      if (!by_reference)
        problem(problems, lambda.expr, "array '" + written + "' captured by copy",
                "a lambda's copy of a whole array is not translated: capture it by reference (`[&" + written + "]`)");
      lambda.members.push_back({fmt::format("thread {} (&{}){};", metal_type(element), name, dimensions(v)), name, ""});
    } else if (is_reference(type) && by_reference) {
      // What a reference refers to: its space is what it binds (a parameter's: what the function's calls bind).
      std::set<std::string> bound = resolved_spaces(clang_getCursorKind(v) == CXCursor_ParmDecl ? "param:" + key
                                                    : clang_Cursor_isNull(init)                 ? "thread"
                                                                                                : bound_space(init));
      if (bound.size() > 1)
        problem(problems, lambda.expr, "capture of '" + written + "' by reference",
                fmt::format("'{}' refers to {} memory (its function is called with both), and a Metal reference names one "
                            "address space: capture it by copy, or pass it as an argument",
                            written, fmt::join(bound, " and ")));
      lambda.members.push_back({fmt::format("{} {}& {};", *bound.begin(), metal_type(pointee_type(type)), name), name, ""});
    } else if (is_pointer(type) || (is_reference(type) && is_pointer(pointee_type(type)))) {
      // A pointer takes the type of its value, whose space (device or constant for a buffer, threadgroup, thread) the
      // port leaves to Metal (`auto row = x + ...`). A kernel's parameters are MLX's arguments: copied.
      templated_member("decltype((" + name + ") + 0)", by_reference && !kernel_parameter, name);
    } else if (const auto captured_lambda = std::find_if(lambdas_.begin(), lambdas_.end(), [&](const Lambda& l) { return l.variable == key; });
               captured_lambda != lambdas_.end()) {
      const std::string site = lambda_site(*captured_lambda);
      templated_member(site.substr(0, site.find('{')), by_reference, name);
    } else {
      const CXType bare = clang_getCanonicalType(is_reference(type) ? pointee_type(type) : type);
      if (bare.kind == CXType_Record && templated_records_.count(decl_key(clang_getTypeDeclaration(bare))))
        problem(problems, lambda.expr, "capture of '" + written + "'",
                "its struct's pointer fields became template parameters (their buffers' types), which the lambda's struct "
                "does not follow: capture the fields it uses in locals first");
      const bool reference = by_reference && !kernel_parameter;
      lambda.members.push_back({reference ? fmt::format("thread {}& {};", metal_type(type), name)
                                          : fmt::format("{} {};", value_type(is_reference(type) ? pointee_type(type) : type), name),
                                name, ""});
    }
    if (value) clang_EvalResult_dispose(value);
  }
  for (const auto& [name, range] : lambda.init_captures) {
    CXCursor decl = clang_getNullCursor();  // the variable the init capture declares, as its body names it
    std::pair<std::string, CXCursor*> search(name, &decl);
    clang_visitChildren(
        lambda.expr,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* s = static_cast<std::pair<std::string, CXCursor*>*>(data);
          if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && spelling(c) == s->first) *s->second = clang_getCursorReferenced(c);
          return CXChildVisit_Recurse;
        },
        &search);
    if (clang_Cursor_isNull(decl)) continue;  // unused
    if (is_pointer(clang_getCursorType(decl))) templated_member("", false, name);
    else lambda.members.push_back({fmt::format("{} {};", value_type(clang_getCursorType(decl)), name), "", ""});
    lambda.members.back().init_b = range.first;
    lambda.members.back().init_e = range.second;
  }
  // The type aliases of the function holding it that its body names (`using T = Tile<BM, BN>;` for `T::kThreads`):
  // the struct's own, in their order there (the struct takes the function's template parameters).
  std::vector<CXCursor> aliases;
  CXCursor lambda_body = clang_getNullCursor();
  for (CXCursor k : children(lambda.expr))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) lambda_body = k;
  std::pair<const Lambda*, std::vector<CXCursor>*> named(&lambda, &aliases);
  clang_visitChildren(
      lambda_body,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto [l, found] = *static_cast<std::pair<const Lambda*, std::vector<CXCursor>*>*>(data);
        if (clang_getCursorKind(c) != CXCursor_TypeRef) return CXChildVisit_Recurse;
        const CXCursor alias = clang_getCursorReferenced(c);
        const CXCursorKind kind = clang_getCursorKind(alias), parent = clang_getCursorKind(clang_getCursorSemanticParent(alias));
        const bool local = parent == CXCursor_FunctionDecl || parent == CXCursor_FunctionTemplate || parent == CXCursor_CXXMethod;
        if ((kind == CXCursor_TypeAliasDecl || kind == CXCursor_TypedefDecl) && local && begin_offset(alias) < begin_offset(l->expr) &&
            std::none_of(found->begin(), found->end(), [&](CXCursor a) { return clang_equalCursors(a, alias); }))
          found->push_back(alias);
        return CXChildVisit_Recurse;
      },
      &named);
  std::sort(aliases.begin(), aliases.end(), [](CXCursor a, CXCursor b) { return begin_offset(a) < begin_offset(b); });
  // (first: the members' types may name them)
  for (auto alias = aliases.rbegin(); alias != aliases.rend(); ++alias)
    lambda.members.insert(lambda.members.begin(), {rw_.render(begin_offset(*alias), end_offset(*alias)) + ";", "", ""});
  // The built-in variables and hoisted __shared__ arrays of its body and callees, as the function holding it has them.
  std::set<std::string> builtins = lambda.body.builtins, shared = lambda.body.shared;
  for (const auto& callee : lambda.body.callees) {
    builtins.insert(functions_.at(callee).builtins.begin(), functions_.at(callee).builtins.end());
    shared.insert(functions_.at(callee).shared.begin(), functions_.at(callee).shared.end());
  }
  for (const auto& b : builtins) lambda.members.push_back({"uint3 " + kBuiltins.at(b) + ";", kBuiltins.at(b), ""});
  for (const auto& name : shared) {
    const HoistedShared& h = hoisted_.at(name);
    lambda.members.push_back({h.parameter(false) + ";", h.owner_key == lambda.owner ? h.name : h.hoisted, ""});
  }
}

// What replaces a lambda: its struct built from its members' values there (`KsLambda8_load<decltype((row) + 0)>{row, cols}`).
std::string Translator::lambda_site(const Lambda& lambda) {
  std::vector<std::string> arguments = lambda.outer_names, values;
  for (const LambdaMember& m : lambda.members) {
    std::string init = m.init, argument = m.type_argument;
    if (m.init_b < m.init_e) {
      init = rw_.render(m.init_b, m.init_e);
      if (m.declaration.rfind("KsCapture", 0) == 0) argument = "decltype((" + init + ") + 0)";  // a pointer
    }
    if (!argument.empty()) arguments.push_back(argument);
    if (!init.empty()) values.push_back(init);
  }
  return fmt::format("{}{}{{{}}}", lambda.name, arguments.empty() ? "" : "<" + fmt::format("{}", fmt::join(arguments, ", ")) + ">",
                     fmt::join(values, ", "));
}

// A lambda's struct: its members, and its body as a (const unless mutable) operator(), a template for `auto` and
// pointer parameters; the return type as written, else the type of what it returns (deduced where that names a
// template parameter).
std::string Translator::lambda_struct(const Lambda& lambda) {
  std::vector<std::string> templates = lambda.outer_templates;
  for (const LambdaMember& m : lambda.members)
    if (const size_t at = m.declaration.find("KsCapture"); at != std::string::npos)
      templates.push_back("typename " + m.declaration.substr(at, m.declaration.find_first_of(" &", at) - at));
  std::string out = templates.empty() ? "" : fmt::format("template <{}>\n", fmt::join(templates, ", "));
  out += "struct " + lambda.name + " {\n";
  for (const LambdaMember& m : lambda.members) out += "  " + m.declaration + "\n";
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(lambda.expr))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  std::string result = "auto", trailing;
  if (lambda.return_b < lambda.return_e) {
    trailing = " -> " + rw_.render(lambda.return_b, lambda.return_e);
  } else {
    CXCursor returned = clang_getNullCursor();  // the first return's value (not a nested lambda's)
    bool returns = false;
    std::tuple<CXCursor*, bool*> search(&returned, &returns);
    clang_visitChildren(
        body,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto [value, found] = *static_cast<std::tuple<CXCursor*, bool*>*>(data);
          if (clang_getCursorKind(c) == CXCursor_LambdaExpr) return CXChildVisit_Continue;
          if (clang_getCursorKind(c) != CXCursor_ReturnStmt) return CXChildVisit_Recurse;
          *found = true;
          for (CXCursor k : children(c)) *value = k;
          return CXChildVisit_Break;
        },
        &search);
    const CXType type = clang_getCanonicalType(clang_getCursorType(returned));
    if (!returns || clang_Cursor_isNull(returned)) result = "void";
    else if (type.kind != CXType_Invalid && type.kind != CXType_Unexposed && type.kind != CXType_Dependent &&
             take(clang_getTypeSpelling(type)).find("type-parameter") == std::string::npos)
      result = unqualified_type(type);
  }
  std::string call_templates;
  for (const auto& name : lambda.call_templates) call_templates += (call_templates.empty() ? "" : ", ") + ("typename " + name);
  // The body without what is inserted after its `}` (the arguments a call passes after the lambda, which are the call's).
  out += fmt::format("  {}{} operator()({}){}{} {}\n}};\n", call_templates.empty() ? "" : "template <" + call_templates + "> ", result,
                     lambda.params_b < lambda.params_e ? rw_.render(lambda.params_b, lambda.params_e) : "",
                     lambda.is_mutable ? "" : " const", trailing, rw_.render(begin_offset(body), end_offset(body) - 1) + "}");
  return out;
}

}  // namespace ksearch::translate::detail
