// Struct arguments of kernels (docs/TRANSLATE.md): a parameter block or functor passed to a kernel is
// rebuilt at the top of its body from the entry's brace list or field assignments; its pointer fields
// point into the buffers (`device`), and its read-only ones become template parameters of the struct
// where they can, so that each takes its buffer's type (device or constant).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

bool brace_initialized(CXCursor var) {
  return clang_getCursorKind(strip_implicit(clang_Cursor_getVarDeclInitializer(var))) == CXCursor_InitListExpr;
}

}  // namespace

// A struct of the file as the body names it (`Params`, `act::Gelu`, `Scale<float>`).
std::string Translator::record_name(CXType record) {
  std::string name = metal_type(clang_getCanonicalType(record));
  for (const std::string anonymous = "(anonymous namespace)::"; name.find(anonymous) != std::string::npos;)
    name.erase(name.find(anonymous), anonymous.size());
  if (name.rfind("const ", 0) == 0) name.erase(0, 6);
  return name;
}

// The pointer fields of a struct passed to a kernel (and of the structs it holds) point into the
// buffers: device memory, which Metal's pointers must name (but the `templated` ones, which take their buffer's type).
void Translator::device_pointer_fields(CXType record, const std::set<unsigned>& templated) {
  struct Context {
    Translator* self;
    const std::set<unsigned>& templated;
    std::vector<CXType> inner;
  } context{this, templated, {}};
  clang_Type_visitFields(
      clang_getCanonicalType(record),
      [](CXCursor field, CXClientData data) {
        auto* c = static_cast<Context*>(data);
        const CXType type = clang_getCanonicalType(clang_getCursorType(field));
        if (is_pointer(array_element_or_self(type)) && !c->templated.count(begin_offset(field)) &&
            c->self->device_fields_.insert(begin_offset(field)).second)
          c->self->rw_.insert(begin_offset(field), "device ");
        else if (type.kind == CXType_Record)
          c->inner.push_back(type);
        return CXVisit_Continue;
      },
      &context);
  for (const CXType& inner : context.inner) device_pointer_fields(inner, templated);
}

// The read-only pointer fields of a struct that a kernel's argument builds field by field, where they can become
// template parameters: a struct of the file (not a template, not unnamed), each such field declared alone, no pointer
// field of it given `device` already, and the struct named in the translated code only as its own name, as the type
// of __device__ functions' parameters (which become template parameters too) and as the type of a field of `holder`.
// The structs it holds by value (declared alone) are followed the same way, held by it alone. Empty where they cannot.
// A pointer field without const is read-only where the launch gives it task inputs (`given_inputs`, its offsets).
std::vector<Translator::FieldPath> Translator::templatable_fields(CXType record, const std::string& holder,
                                                                  const std::set<unsigned>& given_inputs) {
  const CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(record));
  const CXCursorKind kind = clang_getCursorKind(decl);
  if ((kind != CXCursor_StructDecl && kind != CXCursor_ClassDecl) || !in_main_file(decl) || spelling(decl).empty() ||
      clang_Cursor_isAnonymous(decl) || !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl)))
    return {};
  std::vector<FieldPath> read_only;
  std::map<unsigned, int> declarators;  // fields per declaration (`const float *a, *b;` gives both one type)
  for (CXCursor field : fields_of(record)) {
    ++declarators[begin_offset(field)];
    const CXType type = clang_getCanonicalType(clang_getCursorType(field));
    const CXType pointer = array_element_or_self(type);  // (an array of pointers: its elements' type)
    if (is_pointer(pointer) && device_fields_.count(begin_offset(field))) return {};
    if (is_pointer(pointer) && (clang_isConstQualifiedType(pointee_type(pointer)) || given_inputs.count(begin_offset(field)))) {
      read_only.push_back({field});
    } else if (type.kind == CXType_Record) {
      for (FieldPath& inner : templatable_fields(type, decl_key(decl))) {
        inner.insert(inner.begin(), field);
        read_only.push_back(std::move(inner));
      }
    }
  }
  for (const FieldPath& path : read_only)
    if (declarators[begin_offset(path.front())] > 1) return {};
  if (read_only.empty()) return {};
  // Every use of the struct's name in code that is translated: only __device__ functions' parameters may name it, and
  // locals built by a brace list (local_aggregate names their template arguments).
  struct Search {
    Translator* self;
    std::string record;
    std::string holder;
    bool in_holder = false;
    bool other_use = false;
  } search{this, decl_key(decl), holder};
  for (const auto& [key, fn] : functions_) {
    clang_visitChildren(
        fn.cursor,
        [](CXCursor c, CXCursor parent, CXClientData data) {
          auto* s = static_cast<Search*>(data);
          if (clang_getCursorKind(c) != CXCursor_TypeRef) return CXChildVisit_Recurse;
          if (decl_key(clang_getCursorReferenced(c)) == s->record && clang_getCursorKind(parent) != CXCursor_ParmDecl &&
              !(clang_getCursorKind(parent) == CXCursor_VarDecl && brace_initialized(parent)))
            s->other_use = true;
          return CXChildVisit_Continue;
        },
        &search);
  }
  // Other structs of the file holding it (but the holder's fields of its type), its own methods naming it.
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<Search*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        const CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_Namespace || k == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;
        if (k != CXCursor_StructDecl && k != CXCursor_ClassDecl && k != CXCursor_ClassTemplate) return CXChildVisit_Continue;
        s->in_holder = !s->holder.empty() && decl_key(c) == s->holder;
        clang_visitChildren(
            c,
            [](CXCursor t, CXCursor parent, CXClientData d) {
              auto* s = static_cast<Search*>(d);
              if (clang_getCursorKind(t) == CXCursor_TypeRef && decl_key(clang_getCursorReferenced(t)) == s->record &&
                  !(s->in_holder && clang_getCursorKind(parent) == CXCursor_FieldDecl))
                s->other_use = true;
              return CXChildVisit_Recurse;
            },
            s);
        return CXChildVisit_Continue;
      },
      &search);
  return search.other_use ? std::vector<FieldPath>{} : read_only;
}

// A struct of the file built in device code by a brace list (a functor or a loader: `Accumulate acc{x + r * cols, 0,
// cols}`) whose pointer fields are given buffers: its pointer fields point into device memory, and its read-only ones
// become template parameters where they can (as a kernel argument's do), which the declaration names from its values:
// `Accumulate<decltype((x + r * cols) + 0)> acc{...}` (MLX passes an input of fewer than 8 elements in constant memory).
void Translator::local_aggregate(CXCursor var) {
  const CXCursor list = strip_implicit(clang_Cursor_getVarDeclInitializer(var));
  const CXType record = clang_getCanonicalType(clang_getCursorType(var));
  const CXCursor decl = clang_getTypeDeclaration(record);
  if (record.kind != CXType_Record || !in_main_file(decl) || clang_getCursorKind(list) != CXCursor_InitListExpr) return;
  const std::vector<CXCursor> fields = fields_of(record), values = brace_values(list, fields);
  bool buffers = false;
  for (size_t i = 0; i < fields.size(); ++i)
    buffers |= !clang_Cursor_isNull(values[i]) && is_pointer(clang_getCursorType(fields[i])) && space_of(values[i]) == "device";
  // a struct templated already (for a kernel argument, or another local) names its arguments here too
  if (!buffers && !templated_records_.count(decl_key(decl))) return;
  auto value_of = [&](CXCursor field) -> std::optional<CXCursor> {
    for (size_t i = 0; i < fields.size(); ++i)
      if (clang_equalCursors(fields[i], field) && !clang_Cursor_isNull(values[i])) return values[i];
    return std::nullopt;
  };
  auto templated = templated_records_.find(decl_key(decl));
  if (templated == templated_records_.end()) {
    std::vector<FieldPath> leaves = templatable_fields(record);
    std::erase_if(leaves, [](const FieldPath& p) { return p.size() > 1; });
    // every templated field given here, so that the declaration can name its type
    if (!leaves.empty() && std::all_of(leaves.begin(), leaves.end(), [&](const FieldPath& p) { return value_of(p.front()).has_value(); })) {
      template_record(record, leaves);
      templated = templated_records_.find(decl_key(decl));
    }
  }
  std::set<unsigned> templated_offsets;
  std::vector<CXCursor> templated_values;
  if (templated != templated_records_.end())
    for (const FieldPath& path : templated->second) {
      const std::optional<CXCursor> value = path.size() == 1 ? value_of(path.front()) : std::nullopt;
      if (!value)  // held structs' fields, or a field this list leaves out: the declaration cannot name their types
        return problem(out_.problems, var, "struct '" + record_name(record) + "' built by a brace list",
                       "its read-only pointer fields became template parameters (each takes its buffer's space), and this "
                       "list gives no value to '" + spelling(path.back()) + "': give every pointer field a value here");
      templated_offsets.insert(begin_offset(path.back()));
      templated_values.push_back(*value);
    }
  device_pointer_fields(record, templated_offsets);
  if (templated_values.empty()) return;
  for (CXCursor k : children(var))
    if (clang_getCursorKind(k) == CXCursor_TypeRef && clang_equalCursors(clang_getCursorReferenced(k), decl)) {
      rw_.replace(begin_offset(k), end_offset(k), [this, record, templated_values] {
        std::string arguments;
        for (CXCursor v : templated_values)
          arguments += fmt::format("{}decltype(({}) + 0)", arguments.empty() ? "" : ", ", rw_.render(begin_offset(v), end_offset(v)));
        return record_name(record) + "<" + arguments + ">";
      });
      break;
    }
}

// Makes `leaves` (from templatable_fields) the template parameters of the struct, in order: a read-only pointer
// field's type becomes its parameter, a held struct's type that struct with its fields' parameters.
void Translator::template_record(CXType record, const std::vector<FieldPath>& leaves) {
  const CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(record));
  if (templated_records_.count(decl_key(decl))) return;
  std::string list;
  for (size_t i = 0; i < leaves.size();) {
    const CXCursor field = leaves[i].front();
    size_t end = i + 1;
    while (end < leaves.size() && clang_equalCursors(leaves[end].front(), field)) ++end;
    std::string arguments;
    for (size_t k = i; k < end; ++k) {
      list += fmt::format("{}typename KsField{}", k ? ", " : "", k);
      arguments += fmt::format("{}KsField{}", k > i ? ", " : "", k);
    }
    if (leaves[i].size() == 1) {
      rw_.replace(begin_offset(field), position(field).offset, arguments + " ");
    } else {
      std::vector<FieldPath> inner;
      for (size_t k = i; k < end; ++k) inner.emplace_back(leaves[k].begin() + 1, leaves[k].end());
      const CXType type = clang_getCursorType(field);
      template_record(type, inner);
      rw_.replace(begin_offset(field), position(field).offset, fmt::format("{}<{}> ", record_name(type), arguments));
    }
    i = end;
  }
  templated_records_.emplace(decl_key(decl), leaves);
  // A struct of a function's own (a kernel's `struct Row { const float* p; };`) moves to the header, a template
  // cannot be local: unless it names the function's locals, or declares a variable with itself (`struct {...} row;`).
  // (a struct at file scope or a member of one stays where it is)
  const CXCursor anchor = file_level_declaration(decl);
  if (clang_equalCursors(anchor, decl) || is_record(clang_getCursorKind(clang_getCursorSemanticParent(decl)))) {
    rw_.insert(begin_offset(decl), "template <" + list + "> ");
    return;
  }
  const size_t semicolon = rw_.text().find(';', end_offset(decl));
  const bool alone = semicolon != std::string::npos &&
                     text(end_offset(decl), unsigned(semicolon)).find_first_not_of(" \t\r\n") == std::string::npos;
  const std::string local = first_local_named(decl, anchor);
  if (!alone || !local.empty()) {
    out_.problems.push_back({position(decl).file, int(position(decl).line), int(position(decl).column),
                             "struct '" + spelling(decl) + "' declared in a function, with pointer fields",
                             "its pointer fields become template parameters (each takes the address space of what it is "
                             "given), and a template cannot be declared in a function: declare the struct outside it" +
                                 (local.empty() ? std::string(" (here it also declares a variable)")
                                                : " (here it names the function's '" + local + "')")});
    return;
  }
  // (with its line, where it stands alone there)
  const std::string& t = rw_.text();
  size_t from = begin_offset(decl), to = semicolon + 1;
  while (from > 0 && (t[from - 1] == ' ' || t[from - 1] == '\t')) --from;
  if ((from == 0 || t[from - 1] == '\n') && to < t.size() && t[to] == '\n') ++to;
  else from = begin_offset(decl);
  rw_.replace(unsigned(from), unsigned(to), "");
  local_records_.push_back({decl, anchor, "template <" + list + "> "});
}

// The first declaration of `function` (its locals, its template parameters) that `record` names, "" when none.
std::string Translator::first_local_named(CXCursor record, CXCursor function) {
  struct Search {
    unsigned function_b, function_e, record_b, record_e;
    std::string found;
  } search{begin_offset(function), end_offset(function), begin_offset(record), end_offset(record), ""};
  clang_visitChildren(
      record,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<Search*>(data);
        const CXCursor named = clang_getCursorReferenced(c);
        if (!clang_Cursor_isNull(named) && !clang_equalCursors(named, c) && clang_Location_isFromMainFile(clang_getCursorLocation(named))) {
          const unsigned at = begin_offset(named);
          if (at >= s->function_b && at < s->function_e && (at < s->record_b || at >= s->record_e)) {
            s->found = spelling(named);
            return CXChildVisit_Break;
          }
        }
        return CXChildVisit_Recurse;
      },
      &search);
  return search.found;
}

// A struct argument of a kernel (a parameter block, a functor) is rebuilt at the top of its body, so
// the kernel's code stays as written: a brace list (`Params{x, y, n}`, designated too) or a local of
// the entry built field by field and from one as `Params p; p.rows = ...;`, its fields' values where
// the launch uses it; any other argument (`Relu()`, `Scale(alpha)`) as it is written. Its pointer fields are the buffers they
// point into, which it writes through its non-const ones.
std::string Translator::struct_binding(CXType record, CXCursor arg, const std::string& name,
                                       const std::function<void(CXCursor)>& writes_through) {
  const std::vector<CXCursor> fields = fields_of(record);
  const std::string record_key = decl_key(clang_getTypeDeclaration(clang_getCanonicalType(record)));
  auto writable = [](CXCursor field) {
    const CXType t = clang_getCanonicalType(clang_getCursorType(field));
    return is_pointer(t) && !clang_isConstQualifiedType(pointee_type(t));
  };
  // The argument as written, without the copies clang adds (a copy constructor is a call to it),
  // and through a launcher's parameter (`const Params& p`), the argument of the launcher's call.
  CXCursor value = strip_implicit(arg);
  for (bool more = true; more;) {
    more = false;
    if (clang_getCursorKind(value) == CXCursor_CallExpr && clang_getCursorKind(clang_getCursorReferenced(value)) == CXCursor_Constructor &&
        clang_Cursor_getNumArguments(value) == 1 &&
        clang_equalCursors(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(value, 0)))),
                           clang_getTypeDeclaration(record))) {
      value = strip_implicit(clang_Cursor_getArgument(value, 0));
      more = true;
    } else if (auto use = launcher_call_.uses.find(decl_key(clang_getCursorReferenced(value)));
               clang_getCursorKind(value) == CXCursor_DeclRefExpr && use != launcher_call_.uses.end() &&
               !clang_Cursor_isNull(use->second.argument)) {
      value = strip_implicit(use->second.argument);
      more = true;
    } else if (is_address_operation(unit_, value)) {
      value = strip_implicit(children(value).at(0));  // (`*params` of a launcher's pointer given `&params`)
      more = true;
    }
  }
  // A field's value from a brace list as the body writes it (a nested brace list with its type's name).
  auto element_text = [&](CXCursor element, CXCursor field) {
    const std::string value = rw_.render(begin_offset(element), end_offset(element));
    return clang_getCursorKind(strip_implicit(element)) == CXCursor_InitListExpr ? record_name(clang_getCursorType(field)) + value : value;
  };
  const std::string type_text = record_name(record);
  const CXCursor var = clang_getCursorReferenced(value);
  const bool local = clang_getCursorKind(value) == CXCursor_DeclRefExpr && clang_getCursorKind(var) == CXCursor_VarDecl &&
                     in_main_file(var) && clang_getCursorSemanticParent(var).kind != CXCursor_TranslationUnit;
  const auto assignments = local ? host_.assignments.find(decl_key(var)) : host_.assignments.end();
  CXCursor init = clang_getNullCursor();
  if (local)
    for (CXCursor k : children(var))
      if (clang_isExpression(clang_getCursorKind(k))) init = k;
  // A default construction (`Params p;`) gives no value; a brace list one per field.
  const bool defaulted = !clang_Cursor_isNull(init) && clang_getCursorKind(strip_implicit(init)) == CXCursor_CallExpr &&
                         clang_Cursor_getNumArguments(strip_implicit(init)) == 0 &&
                         clang_getCursorKind(clang_getCursorReferenced(strip_implicit(init))) == CXCursor_Constructor;
  const auto elements = brace_fields(local && !clang_Cursor_isNull(init) ? init : value, fields);
  if (!elements && (!local || (!defaulted && !clang_Cursor_isNull(init) && assignments == host_.assignments.end()))) {
    if (templated_records_.count(record_key))
      throw Error(fmt::format("'{}' is built field by field for another launch, where its read-only pointer fields became "
                              "template parameters: build it field by field here too",
                              type_text));
    device_pointer_fields(record);
    for (CXCursor k : children(value)) writes_through(k);  // a constructor's arguments: every buffer it names may be written
    // A local constructed in place (`const ScaleAdd op(alpha);`): its constructor call names the variable.
    const CXCursor construct = strip_implicit(init);
    if (local && clang_getCursorKind(construct) == CXCursor_CallExpr &&
        clang_getCursorKind(clang_getCursorReferenced(construct)) == CXCursor_Constructor &&
        text(begin_offset(construct), end_offset(construct)).rfind(spelling(var), 0) == 0)
      return fmt::format("{} {} = {}{};", type_text, name, type_text,
                         rw_.render(begin_offset(construct) + unsigned(spelling(var).size()), end_offset(construct)));
    return fmt::format("{} {} = {};", type_text, name, rw_.render(begin_offset(value), end_offset(value)));
  }
  if (!elements && !defaulted && !clang_Cursor_isNull(init))
    throw Error(fmt::format("'{}' is initialized by a call (line {}) and then assigned field by field: initialize it with "
                            "a brace list (or declare it without one) and assign its fields",
                            spelling(var), position(var).line));
  const unsigned at = begin_offset(value);
  auto field_index = [](const std::vector<CXCursor>& of, CXCursor field) {
    return size_t(std::find_if(of.begin(), of.end(), [&](CXCursor f) { return clang_equalCursors(f, field); }) - of.begin());
  };
  // The one expression a field holds at the launch (its brace element or its last assignment), where the fields of a
  // struct it holds are read; nullopt where it is not one expression (assigned under a condition, by a compound
  // assignment, or the whole struct assigned).
  auto field_source = [&](CXCursor field) -> std::optional<CXCursor> {
    CXCursor source = elements ? (*elements)[field_index(fields, field)] : clang_getNullCursor();
    if (assignments != host_.assignments.end())
      for (const Assignment& a : assignments->second) {
        if (a.at > at || (!a.member.empty() && a.member != spelling(field))) continue;
        if (a.member.empty() || a.op != "=" || !a.guards.empty() || clang_Cursor_isNull(a.value)) return std::nullopt;
        source = a.value;
      }
    return source;
  };
  // A held struct's pointer field's value, through the brace lists giving the fields that lead to it: "" where none
  // is given (a default member initializer), nullopt where they are not brace lists.
  auto held_value = [&](const FieldPath& path) -> std::optional<std::string> {
    std::optional<CXCursor> source = field_source(path.front());
    for (size_t k = 1; source && !clang_Cursor_isNull(*source) && k < path.size(); ++k) {
      const std::vector<CXCursor> inner = fields_of(clang_getCursorType(path[k - 1]));
      const auto elements_of = brace_fields(*source, inner);
      if (!elements_of) return std::nullopt;
      source = (*elements_of)[field_index(inner, path[k])];
    }
    if (!source) return std::nullopt;
    return clang_Cursor_isNull(*source) ? "" : rw_.render(begin_offset(*source), end_offset(*source));
  };
  // `target.f = value;` for each field of a brace list of a struct of type `type` (a held struct's, recursively); a field
  // given no value keeps its default member initializer.
  std::function<std::string(const std::string&, CXType, CXCursor)> held_assignments = [&](const std::string& target, CXType type,
                                                                                           CXCursor list) {
    const std::vector<CXCursor> inner = fields_of(type);
    const auto values = brace_fields(list, inner);
    std::string text;
    for (size_t k = 0; values && k < inner.size(); ++k) {
      const CXCursor v = (*values)[k];
      if (clang_Cursor_isNull(v)) continue;
      const CXType field_type = clang_getCursorType(inner[k]);
      if (clang_getCanonicalType(field_type).kind == CXType_Record && brace_fields(v, fields_of(field_type)))
        text += held_assignments(target + "." + spelling(inner[k]), field_type, v);
      else
        text += fmt::format(" {}.{} = {};", target, spelling(inner[k]), rw_.render(begin_offset(v), end_offset(v)));
    }
    return text;
  };
  auto held_not_followed = [&](CXCursor field) {
    return Error(fmt::format("field '{}' of '{}' holds pointers that became template parameters for another launch: give it "
                             "a brace list here too",
                             spelling(field), type_text));
  };
  // A pointer field without const given task inputs (`{const_cast<float*>(x), y}`, each item of an array of them) is
  // read-only: Metal binds an input const, in constant memory when it is small. An array holding an input and another
  // buffer has no one type for its items.
  std::map<unsigned, CXCursor> input_fields;  // by field, its (first) input
  for (CXCursor field : fields) {
    const CXType type = clang_getCanonicalType(clang_getCursorType(field));
    const CXType pointer = array_element_or_self(type);
    const std::optional<CXCursor> source = field_source(field);
    if (!is_pointer(pointer) || clang_isConstQualifiedType(pointee_type(pointer)) || !source || clang_Cursor_isNull(*source)) continue;
    const std::vector<CXCursor> items =
        clang_getCursorKind(strip_implicit(*source)) == CXCursor_InitListExpr ? children(strip_implicit(*source)) : std::vector<CXCursor>{*source};
    std::vector<CXCursor> inputs;
    std::copy_if(items.begin(), items.end(), std::back_inserter(inputs), [&](CXCursor v) { return points_into_read_only(v); });
    if (inputs.empty()) continue;
    if (inputs.size() == items.size()) {
      input_fields.emplace(begin_offset(field), inputs.front());
      continue;
    }
    const std::string element = unqualified_type(pointee_type(pointer));
    for (CXCursor v : inputs)
      problem(out_.problems, v, "pointer array '" + spelling(field) + "' given a task input and another buffer",
              "Metal binds an input read-only (in constant memory when it is small), and an array's items share one type: "
              "give the inputs a field (or array) `const " + element + "*` of their own and the other buffers theirs "
              "(`struct { const " + element + "* in; " + element + "* out; }`)");
  }
  // Read-only pointer fields become template parameters where they can (once per struct, and never after a launch
  // gave them `device`), so that each takes the type of the buffer it is given; those of a held struct where the
  // launch gives that struct as a brace list.
  auto templated = templated_records_.find(record_key);
  if (templated == templated_records_.end()) {
    std::set<unsigned> given_inputs;
    for (const auto& [offset, value] : input_fields) given_inputs.insert(offset);
    std::vector<FieldPath> leaves = templatable_fields(record, "", given_inputs);
    if (std::any_of(leaves.begin(), leaves.end(), [&](const FieldPath& p) { return p.size() > 1 && !held_value(p); }))
      std::erase_if(leaves, [](const FieldPath& p) { return p.size() > 1; });
    if (!leaves.empty()) {
      template_record(record, leaves);
      templated = templated_records_.find(record_key);
    }
  }
  std::set<unsigned> templated_offsets, held_templated;  // the templated pointer fields; the fields holding some
  if (templated != templated_records_.end())
    for (const FieldPath& path : templated->second) {
      templated_offsets.insert(begin_offset(path.back()));
      if (path.size() > 1) held_templated.insert(begin_offset(path.front()));
    }
  for (const auto& [offset, value] : input_fields)
    if (!templated_offsets.count(offset))
      problem(out_.problems, value, "pointer field without const given a task input",
              "Metal binds an input read-only (in constant memory when it is small), and this field could not take its "
              "type as a template parameter: declare the field `const " + unqualified_type(pointee_type(clang_getCursorType(value))) +
                  "*` and pass the input without const_cast");
  device_pointer_fields(record, templated_offsets);
  std::map<unsigned, std::string> field_values;  // the templated fields' values, by field
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string field = spelling(fields[i]);
    const CXCursor element = elements ? (*elements)[i] : clang_getNullCursor();
    std::vector<CXCursor> values;
    if (!clang_Cursor_isNull(element)) values.push_back(element);
    if (assignments != host_.assignments.end())
      for (const Assignment& a : assignments->second)
        if (a.at <= at && a.member == field && !clang_Cursor_isNull(a.value)) values.push_back(a.value);
    const bool assigned = assignments != host_.assignments.end() &&
                          std::any_of(assignments->second.begin(), assignments->second.end(),
                                      [&](const Assignment& a) { return a.at <= at && (a.member == field || a.member.empty()); });
    if (values.empty() && !assigned) continue;  // its default member initializer, if any
    if (writable(fields[i]) && !input_fields.count(begin_offset(fields[i])))
      for (CXCursor v : values) writes_through(v);
    for (CXCursor v : values) map_host_calls(v);  // host math in a field's value becomes Metal's, as an argument's
    if (held_templated.count(begin_offset(fields[i]))) {
      // A held struct whose fields are template parameters: its brace list's values, field by field (the struct's
      // type has template arguments the brace list does not name).
      const std::optional<CXCursor> source = field_source(fields[i]);
      if (!source || clang_Cursor_isNull(*source)) throw held_not_followed(fields[i]);
      out += held_assignments(name + "." + field, clang_getCursorType(fields[i]), *source);
      continue;
    }
    // An array field given a brace list (`{{d, 1}, m, d}`): an array is not assignable, its elements are.
    if (const CXType array = clang_getCanonicalType(clang_getCursorType(fields[i]));
        array.kind == CXType_ConstantArray && clang_getCanonicalType(clang_getArrayElementType(array)).kind != CXType_ConstantArray &&
        values.size() == 1 && !clang_Cursor_isNull(element) && clang_getCursorKind(strip_implicit(element)) == CXCursor_InitListExpr) {
      const std::vector<CXCursor> items = children(strip_implicit(element));
      for (long long k = 0; k < clang_getArraySize(array); ++k)
        out += fmt::format(" {}.{}[{}] = {};", name, field, k,
                           size_t(k) < items.size() ? "(" + rw_.render(begin_offset(items[size_t(k)]), end_offset(items[size_t(k)])) + ")" : "{}");
      if (!items.empty())  // a templated array of pointers takes its first element's type (one type for all)
        field_values[begin_offset(fields[i])] = rw_.render(begin_offset(items[0]), end_offset(items[0]));
      continue;
    }
    const std::string assigned_value = null_if_absent(
        !local ? element_text(element, fields[i])
               : host_value(var, at, clang_getCursorType(fields[i]), field, [&]() -> std::string {
                   if (clang_Cursor_isNull(element))
                     throw Error(fmt::format("field '{}' of '{}' is updated before it is given a value", field, spelling(var)));
                   return element_text(element, fields[i]);
                 }));
    out += fmt::format(" {}.{} = {};", name, field, assigned_value);
    field_values[begin_offset(fields[i])] = assigned_value;
  }
  if (templated == templated_records_.end()) return fmt::format("{} {};", type_text, name) + out;
  // A templated field's type is its value's (`decltype((x) + 0)`: the pointer, not a reference to it); one given no
  // buffer (none, or a null pointer) keeps `device`.
  std::string arguments;
  for (const FieldPath& path : templated->second) {
    std::string v;
    if (path.size() > 1) {
      const std::optional<std::string> held = held_value(path);
      if (!held)
        throw held_not_followed(path.front());
      v = *held;
    } else if (field_values.count(begin_offset(path.front()))) {
      v = field_values.at(begin_offset(path.front()));
    }
    while (v.size() > 1 && v.front() == '(' && v.back() == ')') v = v.substr(1, v.size() - 2);
    const bool null = v.empty() || v == "nullptr" || v == "NULL" || v == "0";
    arguments += (arguments.empty() ? "" : ", ") + (null ? "device " + metal_type(clang_getCanonicalType(clang_getCursorType(path.back())))
                                                         : fmt::format("decltype(({}) + 0)", v));
  }
  return fmt::format("{}<{}> {};", type_text, arguments, name) + out;
}

}  // namespace ksearch::translate::detail
