// __device__ functions (docs/TRANSLATE.md): their signatures (group handles dropped, pointer
// parameters templated so that the caller's address space is deduced, references given a space),
// function objects for those passed as arguments, their default arguments visited, static __shared__
// arrays of function templates resolved per their calls, and the built-in variables and hoisted
// __shared__ arrays a kernel passes down to them.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <optional>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// A parameter's default argument: the expression after `=` (others are part of its type, as the 32
// of `thread_block_tile<32>` or of `float (&s)[32]`); a null cursor when it has none.
CXCursor default_argument(CXCursor parameter) {
  for (CXCursor k : children(parameter)) {
    if (!clang_isExpression(clang_getCursorKind(k)) || begin_offset(k) <= position(parameter).offset) continue;
    const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(parameter);
    // Between the written positions: a default that is a macro's use (`int width = C10_WARP_SIZE`) is spelled in
    // its #define, before the parameter, where a range to its spelling would hold no token.
    CXFile file = nullptr;
    clang_getExpansionLocation(clang_getCursorLocation(parameter), &file, nullptr, nullptr, nullptr);
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(unit, clang_getRange(clang_getLocationForOffset(unit, file, position(parameter).offset),
                                        clang_getLocationForOffset(unit, file, begin_offset(k))), &tokens, &n);
    bool assigned = false;
    for (unsigned i = 0; i < n; ++i) assigned = assigned || take(clang_getTokenSpelling(unit, tokens[i])) == "=";
    clang_disposeTokens(unit, tokens, n);
    if (assigned) return k;
  }
  return clang_getNullCursor();
}

// The index of a function's first parameter with a default argument (its parameters' count when none).
size_t first_defaulted(CXCursor function) {
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (!clang_Cursor_isNull(default_argument(params[i]))) return i;
  return params.size();
}

}  // namespace

std::vector<std::pair<unsigned, unsigned>> list_removals(const std::vector<CXCursor>& items, const std::vector<size_t>& drop) {
  std::vector<bool> kept(items.size(), true);
  for (size_t i : drop) kept[i] = false;
  std::vector<std::pair<unsigned, unsigned>> out;
  for (size_t i : drop) {
    const bool kept_after = std::find(kept.begin() + long(i) + 1, kept.end(), true) != kept.end();
    const bool kept_before = std::find(kept.begin(), kept.begin() + long(i), true) != kept.begin() + long(i);
    if (kept_after) out.push_back({begin_offset(items[i]), begin_offset(items[i + 1])});
    else if (kept_before) out.push_back({end_offset(items[i - 1]), end_offset(items[i])});
    else out.push_back({begin_offset(items[i]), i + 1 < items.size() ? begin_offset(items[i + 1]) : end_offset(items[i])});
  }
  return out;
}

std::string whole_words(std::string text, const std::string& word, const std::string& by) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + by.size())) {
    auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    if ((at > 0 && ident(text[at - 1])) || (at + word.size() < text.size() && ident(text[at + word.size()]))) {
      at += 1;
      continue;
    }
    text.replace(at, word.size(), by);
  }
  return text;
}

// A hoisted array's size as the kernel and the function's signature can read it, the function's local constants
// declared before the array written out (LeetCUDA's `constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) /
// WARP_SIZE;` before `static __shared__ float shared[NUM_WARPS];`), those they name in turn, and its local type
// aliases as the types they name (`using T = TileShape;` before `__shared__ float As[T::kK][T::kM + 4];`). A name
// declared twice in the function is left as written.
std::string Translator::with_local_constants(CXCursor function, CXCursor array, std::string dims) {
  std::map<std::string, std::string> constants;
  std::function<void(CXCursor)> collect = [&](CXCursor c) {
    for (CXCursor k : children(c)) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_VarDecl && !clang_equalCursors(k, array) && begin_offset(k) < begin_offset(array) &&
          clang_isConstQualifiedType(clang_getCursorType(k))) {
        const CXCursor init = clang_Cursor_getVarDeclInitializer(k);
        if (!clang_Cursor_isNull(init))
          constants[spelling(k)] = constants.count(spelling(k)) ? "" : "(" + text(begin_offset(init), end_offset(init)) + ")";
      }
      if ((kind == CXCursor_TypeAliasDecl || kind == CXCursor_TypedefDecl) && begin_offset(k) < begin_offset(array))
        constants[spelling(k)] =
            constants.count(spelling(k)) ? "" : take(clang_getTypeSpelling(clang_getTypedefDeclUnderlyingType(k)));
      collect(k);
    }
  };
  collect(function);
  for (int depth = 0; depth < 8; ++depth) {  // a constant naming another
    const std::string before = dims;
    for (const auto& [name, value] : constants)
      if (!value.empty()) dims = whole_words(dims, name, value);
    if (dims == before) break;
  }
  return dims;
}

// A static __shared__ variable of a function template whose type or size names the template's parameters
// (FasterTransformer's `static __shared__ T shared[32];` in `blockReduceSum<T>`): the kernel declares it with the
// arguments its calls give them (one set: each instantiation would have its own array).
void Translator::resolve_hoisted_types() {
  for (auto& [name, h] : hoisted_) {
    auto owner = functions_.find(h.owner_key);
    if (owner == functions_.end() || clang_getCursorKind(owner->second.cursor) != CXCursor_FunctionTemplate) continue;
    std::vector<CXCursor> parameters;
    for (CXCursor k : children(owner->second.cursor))
      if (clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter || clang_getCursorKind(k) == CXCursor_TemplateTypeParameter)
        parameters.push_back(k);
    std::set<std::pair<std::string, std::string>> given;
    // (and the instantiations one function calls: blockReduce<MaxOp> and blockReduce<SumOp> have an array each, of one
    // type, which the hoisted array makes them share; different kernels' calls each hoist their own)
    std::map<std::string, std::set<std::string>> instances;  // caller -> instantiations
    for (const auto& site : call_sites_) {
      if (site.callee != h.owner_key) continue;
      const CXCursor specialization = clang_getCursorReferenced(site.call);
      std::string element = h.element, dims = h.dims, instance;
      auto bind = [&](size_t i, const std::string& value) {
        element = whole_words(element, spelling(parameters[i]), value);
        dims = whole_words(dims, spelling(parameters[i]), "(" + value + ")");
        instance += spelling(parameters[i]) + "=" + value + ";";
      };
      if (!clang_Cursor_isNull(specialization) && clang_Cursor_getNumTemplateArguments(specialization) >= int(parameters.size())) {
        for (size_t i = 0; i < parameters.size(); ++i) {
          const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, unsigned(i));
          if (kind == CXTemplateArgumentKind_Type) bind(i, metal_type(clang_Cursor_getTemplateArgumentType(specialization, unsigned(i))));
          else if (kind == CXTemplateArgumentKind_Integral) bind(i, integral_template_argument(specialization, unsigned(i), parameters[i]));
        }
      } else {
        // A call in a kernel template (`block_reduce<BLOCK>(v)`) instantiates nothing yet: the arguments as written,
        // which name the kernel's own template parameters (MLX template arguments), then the values' defaults.
        // A type parameter left unwritten is deduced from an argument given to a function parameter of that type
        // (`blockReduceSum(acc)` of `T val`, acc a `scalar_t`).
        const std::vector<CXCursor> kids = children(site.call);
        const std::vector<WrittenArgument> written = kids.empty() ? std::vector<WrittenArgument>{} : written_template_arguments(unit_, kids[0]);
        const std::vector<CXCursor> function_parameters = parameters_of(owner->second.cursor);
        auto deduced = [&](const std::string& type_parameter) -> std::string {
          for (size_t a = 0; a < function_parameters.size() && int(a) < clang_Cursor_getNumArguments(site.call); ++a) {
            std::string declared = take(clang_getTypeSpelling(clang_getCursorType(function_parameters[a])));
            if (declared.rfind("const ", 0) == 0) declared.erase(0, 6);
            if (declared != type_parameter && declared != type_parameter + " &") continue;
            // a type of the kernel template as it names it, a known one as Metal does (`__half` is `half`)
            const CXType type = clang_getCursorType(clang_Cursor_getArgument(site.call, unsigned(a)));
            std::string given = clang_getCanonicalType(type).kind == CXType_Unexposed ? take(clang_getTypeSpelling(type))
                                                                                       : unqualified_type(type);
            if (given.rfind("const ", 0) == 0) given.erase(0, 6);
            if (!given.empty() && given.find_first_of("<>&*() ") == std::string::npos) return given;
          }
          return "";
        };
        for (size_t i = 0; i < parameters.size(); ++i) {
          const std::vector<CXCursor> value = children(parameters[i]);
          if (i < written.size()) bind(i, rw_.render(written[i].begin, written[i].end));
          else if (clang_getCursorKind(parameters[i]) == CXCursor_NonTypeTemplateParameter && !value.empty() &&
                   clang_isExpression(clang_getCursorKind(value.back())))
            bind(i, text(begin_offset(value.back()), end_offset(value.back())));
          else if (clang_getCursorKind(parameters[i]) == CXCursor_TemplateTypeParameter)
            if (const std::string type = deduced(spelling(parameters[i])); !type.empty()) bind(i, type);
        }
      }
      given.insert({element, dims});
      instances[site.caller].insert(instance);
    }
    if (given.size() == 1) std::tie(h.resolved_element, h.resolved_dims) = *given.begin();
    if (given.size() == 1 && std::any_of(instances.begin(), instances.end(), [](const auto& i) { return i.second.size() > 1; }))
      out_.notes.push_back(fmt::format(
          "static __shared__ '{}' of '{}' is one array for the function template's instantiations that a function calls, "
          "where CUDA gives each its own: a call that writes it while another's reads may still be pending needs a "
          "barrier between them (a race metalsim reports otherwise)",
          h.name, spelling(owner->second.cursor)));
    if (given.size() > 1)
      problem(owner->second.record.problems, owner->second.cursor, "static __shared__ '" + h.name + "' of a function template",
              "its calls instantiate it with different template arguments, each with an array of its own, which the port "
              "hoists into the kernel once: declare the arrays in the kernel and pass them");
  }
}

namespace {

// Where a function's written result type lies: from its first token after the template head, attributes and
// specifiers (`__device__ static inline`) to its name. None for a qualified name (a member defined outside its class).
std::optional<std::pair<unsigned, unsigned>> result_type_range(CXTranslationUnit unit, CXCursor function) {
  static const std::set<std::string> specifiers = {"__device__", "__host__", "__forceinline__", "__noinline__", "__inline__",
                                                   "inline", "static", "constexpr", "extern"};
  // (From where the declaration is written: its extent may begin inside a macro of cuda_include, `__device__`'s.)
  CXFile file = nullptr;
  clang_getFileLocation(clang_getCursorLocation(function), &file, nullptr, nullptr, nullptr);
  const unsigned name_at = position(function).offset;
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getRange(clang_getLocationForOffset(unit, file, begin_offset(function)),
                                      clang_getLocationForOffset(unit, file, name_at)), &tokens, &n);
  std::optional<unsigned> type_at;
  std::string last;  // the token before the name
  int depth = 0;     // inside a template head's <...> or an attribute's parentheses and brackets
  for (unsigned i = 0; i < n; ++i) {
    const unsigned at = position(clang_getTokenLocation(unit, tokens[i])).offset;
    if (at >= name_at) break;
    last = take(clang_getTokenSpelling(unit, tokens[i]));
    if (last == "<" || last == "(" || last == "[") ++depth;
    else if (last == ">" || last == ")" || last == "]") --depth;
    else if (last == ">>") depth -= 2;
    else if (!type_at && depth == 0 && last != "template" && last != "__attribute__" && !specifiers.count(last)) type_at = at;
  }
  clang_disposeTokens(unit, tokens, n);
  if (!type_at || last == "::") return std::nullopt;
  return std::make_pair(*type_at, name_at);
}

}  // namespace

// A function template's type parameter named only by what its pointer parameters point to (FlashInfer's
// `template <typename T> void cast_store(T* ptr)`): once those pointers' types are template parameters, nothing
// deduces it, and nothing reads it either: it gets a default, so that a call (a method's too) need not name it.
void Translator::default_pointee_parameters(Function& fn, const std::vector<CXCursor>& params) {
  if (clang_getCursorKind(fn.cursor) != CXCursor_FunctionTemplate) return;
  for (CXCursor t : children(fn.cursor)) {
    if (clang_getCursorKind(t) != CXCursor_TemplateTypeParameter || !children(t).empty()) continue;  // (a default already)
    struct Search {
      std::string key;
      std::vector<std::pair<unsigned, unsigned>> pointers;  // the pointer parameters' extents
      bool elsewhere = false, in_pointer = false;
    } search{decl_key(t), {}, false, false};
    for (CXCursor p : params)
      if (is_pointer(clang_getCursorType(p))) search.pointers.emplace_back(begin_offset(p), end_offset(p));
    clang_visitChildren(
        fn.cursor,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* s = static_cast<Search*>(data);
          if (clang_getCursorKind(c) != CXCursor_TypeRef || decl_key(clang_getCursorReferenced(c)) != s->key) return CXChildVisit_Recurse;
          const unsigned at = begin_offset(c);
          const bool pointer = std::any_of(s->pointers.begin(), s->pointers.end(), [at](const auto& r) { return at >= r.first && at < r.second; });
          (pointer ? s->in_pointer : s->elsewhere) = true;
          return s->elsewhere ? CXChildVisit_Break : CXChildVisit_Continue;
        },
        &search);
    if (search.in_pointer && !search.elsewhere) rw_.insert(end_offset(t), " = void");
  }
}

// A __device__ function: pointer parameters become template parameters (the caller's address
// space is deduced), references to locals get `thread`.
void Translator::device_function_signature(Function& fn) {
  function_pointer_template_parameters(fn);
  // Overloads that differ only in what their pointer parameters point to (`load(const float*)`, `load(const float4*)`)
  // become one signature once every pointer's type is a template parameter.
  const auto signature = [](CXCursor function, bool erase_pointers) {
    std::string out;
    for (CXCursor p : parameters_of(function)) {
      const CXType type = clang_getCanonicalType(clang_getCursorType(p));
      out += (erase_pointers && is_pointer(type) ? std::string("pointer") : take(clang_getTypeSpelling(type))) + ",";
    }
    return out;
  };
  for (const auto& [key, other] : functions_)
    if (!other.kernel && begin_offset(other.cursor) < begin_offset(fn.cursor) && spelling(other.cursor) == spelling(fn.cursor) &&
        clang_getCursorKind(other.cursor) == clang_getCursorKind(fn.cursor) &&
        signature(other.cursor, true) == signature(fn.cursor, true) && signature(other.cursor, false) != signature(fn.cursor, false) &&
        clang_equalCursors(clang_getCursorSemanticParent(other.cursor), clang_getCursorSemanticParent(fn.cursor))) {
      problem(fn.record.problems, fn.cursor, "overloads of '" + spelling(fn.cursor) + "' by pointer type",
              fmt::format("it and the overload at line {} differ only in what their pointer parameters point to; the port "
                          "makes each pointer's type a template parameter (the caller's address space), which leaves the "
                          "calls ambiguous: give the overloads different names",
                          position(other.cursor).line));
      break;
    }
  // A returned pointer's type names no address space in CUDA, and an unqualified Metal pointer is a thread one: the
  // result type becomes `auto`, deduced from what the function returns (a parameter's space, which a call deduces).
  if (is_pointer(clang_getCursorResultType(fn.cursor)) && clang_getCursorKind(fn.cursor) != CXCursor_CXXMethod)
    if (const auto range = result_type_range(unit_, fn.cursor)) rw_.replace(range->first, range->second, "auto ");
  // So does a returned reference (`float& at(float* base, int i)` given shared memory, `const T& bigger(const T& a, ...)`
  // bound to shared elements): `decltype(auto)` keeps the reference and the space of what it returns.
  if (clang_getCursorResultType(fn.cursor).kind == CXType_LValueReference && clang_getCursorKind(fn.cursor) != CXCursor_CXXMethod)
    if (const auto range = result_type_range(unit_, fn.cursor)) rw_.replace(range->first, range->second, "decltype(auto) ");
  const std::vector<CXCursor> params = parameters_of(fn.cursor);
  const std::vector<size_t> groups = group_parameters(fn.cursor);
  for (const auto& [b, e] : list_removals(params, groups)) rw_.replace(b, e, "");
  const std::vector<std::string> template_params = parameter_templates(params, fn);
  if (template_params.empty()) return;
  default_pointee_parameters(fn, params);
  std::string list;
  for (const auto& t : template_params) list += (list.empty() ? "" : ", ") + std::string("typename ") + t;
  const unsigned b = begin_offset(fn.cursor);
  if (clang_getCursorKind(fn.cursor) == CXCursor_FunctionTemplate) {
    // After the function's own template parameters: a call's explicit arguments (`f<256>(...)`) bind those.
    unsigned last = b;
    for (CXCursor k : children(fn.cursor)) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter || kind == CXCursor_TemplateTemplateParameter)
        last = std::max(last, end_offset(k));
    }
    rw_.insert(unsigned(rw_.text().find('>', last)), ", " + list);
  } else {
    rw_.insert(b, "template <" + list + "> ");
  }
}

// A call of a function template whose type parameter only pointer parameters deduce (Apex's
// `cuWelfordMuSigma2<T, U>(const T* vals, ..., U& mu, ...)`): once each pointer's type is a template parameter of its
// own (`KsPointer0 vals`, for the caller's address space), nothing deduces it, so the call names the template
// arguments up to the last such parameter (`cuWelfordMuSigma2<T>(vals, ...)`).
void Translator::name_pointer_deduced_templates(CXCursor call, CXCursor function, const std::vector<CXCursor>& args, Function& fn) {
  std::vector<CXCursor> templates;
  for (CXCursor k : children(function)) {
    const CXCursorKind kind = clang_getCursorKind(k);
    if (kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter || kind == CXCursor_TemplateTemplateParameter)
      templates.push_back(k);
  }
  const std::vector<CXCursor> params = parameters_of(function);
  auto names = [](CXCursor param, CXCursor t) {
    const std::vector<CXCursor> kids = children(param);
    return std::any_of(kids.begin(), kids.end(), [&](CXCursor k) {
      return clang_getCursorKind(k) == CXCursor_TypeRef && clang_equalCursors(clang_getCursorReferenced(k), t);
    });
  };
  size_t needed = 0;  // how many template arguments the call must name
  for (size_t i = 0; i < templates.size(); ++i) {
    bool in_pointer = false, elsewhere = false;
    for (CXCursor p : params)
      if (names(p, templates[i])) (is_pointer(clang_getCursorType(p)) ? in_pointer : elsewhere) = true;
    if (in_pointer && !elsewhere) needed = i + 1;
  }
  if (needed == 0 || args.empty()) return;
  // The arguments written after the name (`f<U>(...)`) and where the list ends.
  const std::string& t = rw_.text();
  unsigned head_end = unsigned(t.rfind('(', begin_offset(args.front())));
  while (head_end > 0 && std::isspace(static_cast<unsigned char>(t[head_end - 1]))) --head_end;
  size_t written = 0;
  if (t[head_end - 1] == '>') {
    written = 1;
    int depth = 0;
    for (unsigned at = head_end - 1; at > begin_offset(call); --at) {
      depth += t[at] == '>' ? 1 : t[at] == '<' ? -1 : 0;
      if (depth == 0) break;
      if (depth == 1 && t[at] == ',') ++written;
    }
  }
  if (written >= needed) return;
  auto unqualified = [this](CXType type) {
    std::string name = metal_type(type);
    for (const std::string qualifier : {"const ", "volatile "})
      if (name.rfind(qualifier, 0) == 0) name.erase(0, qualifier.size());
    return name;
  };
  // A call outside templates names its specialization, whose arguments clang deduced; one inside a template is
  // matched against its arguments' types.
  const CXCursor specialization = clang_getCursorReferenced(call);
  std::string list;
  for (size_t i = written; i < needed; ++i) {
    std::string value;
    const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, unsigned(i));
    if (kind == CXTemplateArgumentKind_Type) value = metal_type(clang_Cursor_getTemplateArgumentType(specialization, unsigned(i)));
    else if (kind == CXTemplateArgumentKind_Integral) value = integral_template_argument(specialization, unsigned(i), templates[i]);
    for (size_t j = 0; j < params.size() && j < args.size() && value.empty(); ++j) {
      // The parameter's type is the template parameter itself, through a pointer or a reference (`const T*`, `U&`).
      CXType type = clang_getCursorType(params[j]);
      const bool pointer = is_pointer(type);
      type = pointer || is_reference(type) ? pointee_type(type) : type;
      if (unqualified(type) != spelling(templates[i])) continue;
      CXType given = clang_getCursorType(strip_implicit(args[j]));
      if (pointer) given = clang_getArrayElementType(given).kind != CXType_Invalid ? clang_getArrayElementType(given) : pointee_type(given);
      if (given.kind == CXType_Invalid) continue;
      value = unqualified(given);
    }
    if (value.empty())
      return problem(fn.record.problems, call, "call of '" + spelling(function) + "'",
                     "its template parameter '" + spelling(templates[i]) + "' is deduced only from a pointer parameter, whose "
                     "type becomes a template parameter of its own (the caller's address space): name the template "
                     "arguments at the call (`" + spelling(function) + "<...>(...)`)");
    list += (list.empty() ? "" : ", ") + value;
  }
  if (written > 0) rw_.insert(head_end - 1, ", " + list);
  else rw_.insert(head_end, "<" + list + ">");
}

// The parameters of a __device__ function or a lambda: a pointer's type becomes a template parameter (the caller's
// address space is deduced), as does a struct's whose pointer fields are template parameters; a reference gets the
// space it binds (`thread`, or a lambda's calls' space). Returns the template parameters' names.
std::vector<std::string> Translator::parameter_templates(const std::vector<CXCursor>& params, Function& fn) {
  std::vector<std::string> template_params;
  // (a lambda's parameters are not its function's: their spaces come from the lambda's calls, lambdas.cpp)
  const std::vector<CXCursor> own = parameters_of(fn.cursor);
  for (size_t index = 0; index < params.size(); ++index) {
    const CXCursor p = params[index];
    const bool own_parameter = index < own.size() && clang_equalCursors(own[index], p);
    CXType type = clang_getCursorType(p);
    if (spelling(p).empty()) continue;
    if (const Group group = group_of(type); group.kind != Group::none) {
      if (const std::string why = tile_refusal(group, true); !why.empty())
        problem(fn.record.problems, p, "thread_block_tile parameter", why);
      continue;
    }
    if (shared_address_parameter(p)) {  // a pointer from here on (ptx.cpp)
      const std::string name = fmt::format("KsPointer{}", template_params.size());
      template_params.push_back(name);
      spaces_[decl_key(p)] = "threadgroup";
      rw_.replace(begin_offset(p), position(p).offset, name + " ");
      ++fn.record.translated["shared-window address parameter (a pointer)"];
      continue;
    }
    if (is_pointer(type)) {
      const std::string name = fmt::format("KsPointer{}", template_params.size());
      template_params.push_back(name);
      spaces_[decl_key(p)] = "device";  // until its calls are known (resolve_pointer_parameter_spaces)
      if (own_parameter) pointer_parameters_[decl_key(p)] = {decl_key(fn.cursor), index};
      // A pointer to an array (`float (*tile)[33]`, a double buffer's half) has its name inside the declarator: the
      // whole declaration becomes the template's.
      if (is_array_pointer(type))
        rw_.replace(begin_offset(p), end_offset(p), name + " " + spelling(p));
      else
        rw_.replace(begin_offset(p), position(p).offset, name + " ");
      continue;
    }
    // A reference to a pointer (`const float*& p`: a helper advancing the caller's pointer): the pointer's type becomes
    // a template parameter as above, and the reference binds the caller's pointer variable, a thread one.
    if (is_reference(type) && is_pointer(pointee_type(type)) && !is_array_pointer(pointee_type(type))) {
      const std::string name = fmt::format("KsPointer{}", template_params.size());
      template_params.push_back(name);
      spaces_[decl_key(p)] = "device";
      if (own_parameter) pointer_parameters_[decl_key(p)] = {decl_key(fn.cursor), index};
      const bool constant = clang_isConstQualifiedType(pointee_type(type));
      rw_.replace(begin_offset(p), position(p).offset, "thread " + name + (constant ? " const& " : "& "));
      continue;
    }
    // A struct whose pointer fields are template parameters: the parameter's type is one too (deduced at the call).
    const CXType bare = clang_getCanonicalType(is_reference(type) ? pointee_type(type) : type);
    if (bare.kind == CXType_Record && templated_records_.count(decl_key(clang_getTypeDeclaration(bare))))
      for (CXCursor k : children(p))
        if (clang_getCursorKind(k) == CXCursor_TypeRef) {
          const std::string name = fmt::format("KsRecord{}", template_params.size());
          template_params.push_back(name);
          rw_.replace(begin_offset(k), end_offset(k), name);
        }
    if (is_reference(type))
      rw_.insert(begin_offset(p), [this, key = decl_key(p)] {
        const auto space = reference_spaces_.find(key);
        return (space == reference_spaces_.end() ? "thread" : space->second) + " ";
      });
  }
  return template_params;
}

// A function of the file passed as an argument (FasterTransformer's `BlockReduce(temp).Reduce(md, reduce_md_op)`,
// `apply(twice, v)`): Metal has no function pointers, so the argument becomes a function object whose operator()
// calls the function (the header defines it after the function), typed as the function is, or forwarding any
// arguments where its type names a template's parameters.
void Translator::wrap_function_arguments(CXCursor call, Function& fn) {
  for (int i = 0; i < clang_Cursor_getNumArguments(call); ++i) {
    const CXCursor written = clang_Cursor_getArgument(call, unsigned(i));
    CXCursor named = strip_casts(written);
    if (clang_getCursorKind(named) == CXCursor_UnaryOperator && !children(named).empty() &&
        tokens_of(unit_, named).front() == "&")
      named = strip_casts(children(named)[0]);
    if (clang_getCursorKind(named) != CXCursor_DeclRefExpr) continue;
    const std::string object = function_object(named, written, fn);
    if (object.empty()) continue;
    rw_.replace(begin_offset(written), end_offset(written), object + "()");
    ++fn.record.translated["function argument (function object)"];
  }
}

// The function object standing for the function `named` refers to (a struct whose operator() calls it, defined after
// the function in the header): its name, "" where `named` names no function of the file or it cannot be one.
std::string Translator::function_object(CXCursor named, CXCursor written, Function& fn) {
  const CXCursor function = clang_getCursorReferenced(named);
  const CXCursorKind kind = clang_getCursorKind(function);
  if ((kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) || !functions_.count(decl_key(defining_cursor(function))))
    return "";
  const std::string callee = text(begin_offset(named), end_offset(named));
  std::string name = "ks_fn_";
  for (char ch : callee) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  const CXType type = clang_getCursorType(function);
  std::string parameters, arguments;
  bool dependent = kind == CXCursor_FunctionTemplate || type.kind != CXType_FunctionProto;
  for (int p = 0; !dependent && p < clang_getNumArgTypes(type); ++p) {
    CXType t = clang_getArgType(type, unsigned(p));
    if (is_reference(t) && !clang_isConstQualifiedType(pointee_type(t))) {
      problem(fn.record.problems, written, "function argument '" + callee + "'",
              "Metal has no function pointers and the port passes the function as a function object, whose arguments "
              "are values: '" + callee + "' takes a non-const reference");
      return "";
    }
    if (is_reference(t)) t = pointee_type(t);
    const std::string spelled = take(clang_getTypeSpelling(t));
    dependent |= spelled.find("type-parameter") != std::string::npos || t.kind == CXType_Unexposed;
    parameters += fmt::format("{}{} a{}", p ? ", " : "", metal_type(t), p);
    arguments += fmt::format("{}a{}", p ? ", " : "", p);
  }
  std::string call_operator = dependent ? fmt::format("  template <typename... A> auto operator()(A... a) const {{ return {}(a...); }}\n", callee)
                                        : fmt::format("  {} operator()({}) const {{ return {}({}); }}\n",
                                                      metal_type(clang_getResultType(type)), parameters, callee, arguments);
  // the function object passes values: the function's reference parameters bind thread memory there
  Function& target = functions_.at(decl_key(defining_cursor(function)));
  target.reference_spaces.insert(std::vector<std::string>(reference_parameters(target.cursor).size(), "thread"));
  function_objects_[name] = {defining_cursor(function),
                             fmt::format("// '{}' as a function object: Metal has no function pointers\nstruct {} {{\n{}}};\n",
                                         callee, name, call_operator)};
  return name;
}

// A __device__ function template's function-pointer template parameters (llm.c's `template <float (*warp_reduction)(float)>
// float blockReduce(float)`): Metal has no function pointers, so each becomes a type parameter of the same name,
// called as an object (`warp_reduction{}(v)`), and a call's function argument the function's object
// (`blockReduce<ks_fn_warpReduceMax>(v)`).
namespace {
bool is_function_pointer_parameter(CXCursor parameter) {
  const CXType type = clang_getCanonicalType(clang_getCursorType(parameter));
  return clang_getCursorKind(parameter) == CXCursor_NonTypeTemplateParameter && type.kind == CXType_Pointer &&
         clang_getCanonicalType(clang_getPointeeType(type)).kind == CXType_FunctionProto;
}
}  // namespace

void Translator::function_pointer_template_parameters(Function& fn) {
  if (clang_getCursorKind(fn.cursor) != CXCursor_FunctionTemplate) return;
  for (CXCursor k : children(fn.cursor))
    if (is_function_pointer_parameter(k)) {
      rw_.replace(begin_offset(k), end_offset(k), "typename " + spelling(k));
      functor_parameters_.insert(decl_key(k));
      ++fn.record.translated["function pointer template parameter (function object)"];
    }
}

void Translator::function_template_arguments(CXCursor call, CXCursor callee, Function& fn) {
  // (a call in a template names the template itself)
  CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
  if (clang_Cursor_isNull(pattern) && clang_getCursorKind(callee) == CXCursor_FunctionTemplate) pattern = callee;
  const std::vector<CXCursor> kids = children(call);
  if (clang_Cursor_isNull(pattern) || kids.empty()) return;
  const std::vector<CXCursor> parameters = children(pattern);
  const bool function_parameters = std::any_of(parameters.begin(), parameters.end(), is_function_pointer_parameter);
  // The call's written template arguments: a kernel's template template parameter passed on (`Write<..., Epilogue>`)
  // becomes the template its launch gives; a function (`warp_sum`, `&warp_sum`) its object's type.
  const CXFile file = clang_getFile(unit_, file_.c_str());
  for (const WrittenArgument& a : written_template_arguments(unit_, kids[0])) {
    const std::string& source = rw_.text();  // (`&warp_sum`: the name after the operator)
    const size_t name_at = source[a.begin] == '&' ? source.find_first_not_of("& \t\n", a.begin) : a.begin;
    const CXCursor named = clang_getCursor(unit_, clang_getLocationForOffset(unit_, file, unsigned(name_at)));
    if (clang_getCursorKind(named) == CXCursor_TemplateRef) {
      if (const auto r = param_renames_.find(decl_key(clang_getCursorReferenced(named))); r != param_renames_.end())
        rw_.replace(a.begin, a.end, r->second);
      continue;
    }
    if (!function_parameters) continue;
    // A function template's instance (`warp_sum<T>`: in a template a dependent argument, whose object the port
    // cannot name).
    const std::string head = a.text.substr(0, a.text.find(" <"));
    if (head.size() < a.text.size() &&
        std::any_of(functions_.begin(), functions_.end(), [&](const auto& f) { return spelling(f.second.cursor) == head; })) {
      problem(fn.record.problems, call, "function template argument '" + head + "<...>'",
              "a function template's instance given to a function-pointer template parameter: the port passes functions "
              "as function objects, which it does not make for an instance: give a function, or a function object type");
      return;
    }
    // (in a template, an argument may have no cursor of its own: the one found is then the whole callee's)
    if (clang_getCursorKind(named) != CXCursor_DeclRefExpr || begin_offset(named) != name_at) continue;
    if (const std::string object = function_object(named, named, fn); !object.empty()) rw_.replace(a.begin, a.end, object);
  }
}

void Translator::visit_function(Function& fn) {
  visiting_ = decl_key(fn.cursor);
  if (!fn.kernel) device_function_signature(fn);
  refuse_tuple(fn.cursor, clang_getCursorResultType(fn.cursor), fn);
  for (CXCursor p : parameters_of(fn.cursor)) {
    refuse_function_pointer(p, fn);
    refuse_tuple(p, clang_getCursorType(p), fn);
  }
  for (CXCursor k : children(fn.cursor))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) {
      visit(k, fn);
    } else if (clang_getCursorKind(k) == CXCursor_ParmDecl && !clang_Cursor_isNull(default_argument(k))) {
      visit(default_argument(k), fn);  // `int width = warpSize`
    } else if (clang_isExpression(clang_getCursorKind(k))) {
      visit(k, fn);  // a constructor's member initializer (`: lane(threadIdx.x & 31)`), as its body
    }
}

// Built-in variables and hoisted __shared__ variables used by __device__ functions (their callees' included) are
// passed down from the kernel: extra parameters of each function, extra arguments of each call.
void Translator::pass_down_kernel_state() {
  // A function object calls its function without the kernel's state, which it cannot reach.
  for (const auto& [name, wrapper] : function_objects_)
    if (const Function& f = functions_.at(decl_key(wrapper.first)); !f.builtins.empty() || !f.shared.empty())
      problem(out_.problems, wrapper.first, "function argument '" + spelling(wrapper.first) + "'",
              "passed as a function object, it cannot be given the built-in variables or __shared__ arrays it uses: "
              "pass them as arguments, or write a struct with an operator() holding them");
  for (auto& [key, fn] : functions_) {
    if (fn.kernel || (fn.builtins.empty() && fn.shared.empty())) continue;
    std::string params;
    for (const auto& b : fn.builtins) params += ", uint3 " + kBuiltins.at(b);
    for (const auto& name : fn.shared) {
      const HoistedShared& h = hoisted_.at(name);
      params += ", " + h.parameter(h.owner_key == key);
    }
    const std::vector<CXCursor> decl_params = parameters_of(fn.cursor);
    // Before the parameters with default arguments (`int width = warpSize`), which must come last.
    if (const size_t defaulted = first_defaulted(fn.cursor); defaulted < decl_params.size()) {
      rw_.insert(begin_offset(decl_params[defaulted]), params.substr(2) + ", ");
      continue;
    }
    const unsigned after = decl_params.empty() ? position(fn.cursor).offset : end_offset(decl_params.back());
    const size_t close = rw_.text().find(')', after);
    const bool none_kept = decl_params.size() == group_parameters(fn.cursor).size();
    rw_.insert(unsigned(close), none_kept ? params.substr(2) : params);
  }
  for (const auto& site : call_sites_) {
    const Function& callee = functions_.at(site.callee);
    if (callee.builtins.empty() && callee.shared.empty()) continue;
    std::string args;
    for (const auto& b : callee.builtins) args += ", " + kBuiltins.at(b);
    for (const auto& h : callee.shared) args += ", " + h;
    // A call that passes a defaulted parameter gets them before it, as the parameters are.
    const size_t defaulted = first_defaulted(callee.cursor);
    const unsigned end = end_offset(site.call);
    const std::string& t = rw_.text();
    if (const std::vector<CXCursor> written = written_arguments(site.call); defaulted < written.size()) {
      rw_.insert(begin_offset(written[defaulted]), args.substr(2) + ", ");
    } else if (clang_getCursorKind(callee.cursor) == CXCursor_Constructor && end > 0 && t[end - 1] != ')' && t[end - 1] != '}') {
      // A default construction without parentheses (`Lane lane;`, whose extent is the name) gets them, but an array's
      // elements take no arguments.
      if (t.find_first_not_of(" \t\n", end) < t.size() && t[t.find_first_not_of(" \t\n", end)] == '[')
        problem(out_.problems, site.call, "array of '" + spelling(clang_getCursorSemanticParent(callee.cursor)) + "'",
                "its elements' constructor reads built-in variables, which the port passes to it as arguments, and an "
                "array's elements are constructed with none: give the struct a constructor without them and set the "
                "elements in a loop");
      else
        rw_.insert(end, "(" + args.substr(2) + ")");
    } else {
      rw_.insert(end - 1, site.arguments == 0 ? args.substr(2) : args);
    }
  }
}

// What the file's structs hold that the port cannot carry to Metal, reported at its line. Virtual methods: Metal has no
// virtual functions. The built-in variables (and hoisted __shared__ arrays) a constructor is given as arguments reach
// only the constructions the file writes: a default member initializer has none to read them from, and a constructor
// that reads them cannot be called implicitly (a member or base left out of a member-initializer list, a struct's
// implicit constructor). Other default member initializers are translated as a function body is.
void Translator::check_records() {
  const auto reads_kernel_state = [&](const Function& f) {
    if (!f.builtins.empty() || !f.shared.empty()) return true;
    return std::any_of(f.callees.begin(), f.callees.end(), [&](const std::string& k) {
      return !functions_.at(k).builtins.empty() || !functions_.at(k).shared.empty();
    });
  };
  // decl_keys of the structs whose default constructor reads them
  std::set<std::string> stateful;
  for (const auto& [key, fn] : functions_)
    if (clang_getCursorKind(fn.cursor) == CXCursor_Constructor && first_defaulted(fn.cursor) == 0 && reads_kernel_state(fn))
      stateful.insert(decl_key(clang_getCursorSemanticParent(fn.cursor)));
  const auto record_key = [](CXType t) {
    while (clang_getArrayElementType(t).kind != CXType_Invalid) t = clang_getArrayElementType(t);
    CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
    if (const CXCursor pattern = clang_getSpecializedCursorTemplate(decl); !clang_Cursor_isNull(pattern)) decl = pattern;
    return clang_Cursor_isNull(decl) ? std::string() : decl_key(decl);
  };
  std::function<void(CXCursor)> walk = [&](CXCursor scope) {
    for (CXCursor c : children(scope)) {
      if (!in_main_file(c)) continue;
      const CXCursorKind kind = clang_getCursorKind(c);
      if (kind == CXCursor_Namespace || kind == CXCursor_UnexposedDecl || is_record(kind)) walk(c);
      if (!is_record(kind)) continue;
      std::optional<CXCursor> virtual_method;  // the first
      std::vector<CXCursor> constructors, members;  // members: fields and bases
      for (CXCursor m : children(c)) {
        const CXCursorKind mk = clang_getCursorKind(m);
        if (!virtual_method && clang_CXXMethod_isVirtual(m)) virtual_method = m;
        if (mk == CXCursor_Constructor || (mk == CXCursor_FunctionTemplate && spelling(m) == spelling(c))) constructors.push_back(m);
        if (mk == CXCursor_FieldDecl || mk == CXCursor_CXXBaseSpecifier) members.push_back(m);
      }
      if (virtual_method)
        problem(out_.problems, *virtual_method, "virtual method '" + spelling(*virtual_method) + "' of '" + spelling(c) + "'",
                "Metal has no virtual functions: choose the implementation at compile time (a template parameter, "
                "CRTP's static_cast<const Derived&>(*this)) or by a switch on a kind member");
      for (CXCursor m : members) {
        const CXCursorKind mk = clang_getCursorKind(m);
        const std::vector<CXCursor> kids = children(m);
        if (mk == CXCursor_FieldDecl && !kids.empty() && clang_isExpression(clang_getCursorKind(kids.back())) &&
            clang_getFieldDeclBitWidth(m) < 0) {
          Function initializer{m};
          visiting_.clear();
          visit(kids.back(), initializer);
          if (reads_kernel_state(initializer))
            problem(out_.problems, m, "default member initializer of '" + spelling(m) + "' reading built-in variables",
                    "Metal's built-in variables are kernel parameters, which the port passes to the functions and "
                    "constructors that read them, and a default member initializer has none: initialize the member in a "
                    "constructor's member-initializer list (`__device__ " + spelling(c) + "() : " + spelling(m) + "(...) {}`)");
          out_.problems.insert(out_.problems.end(), initializer.record.problems.begin(), initializer.record.problems.end());
        }
        const CXType type = clang_getCursorType(m);
        if (!stateful.count(record_key(type))) continue;
        // A written initializer names the member (or the base's type) before its expression.
        const auto initializes = [&](CXCursor constructor) {
          const std::vector<CXCursor> parts = children(constructor);
          return std::any_of(parts.begin(), parts.end(), [&](CXCursor k) {
            const CXCursorKind pk = clang_getCursorKind(k);
            return (pk == CXCursor_MemberRef || pk == CXCursor_TypeRef) &&
                   record_key(clang_getCursorType(clang_getCursorReferenced(k))) == record_key(type) &&
                   (mk == CXCursor_CXXBaseSpecifier || decl_key(clang_getCursorReferenced(k)) == decl_key(m));
          });
        };
        const bool array = clang_getArrayElementType(type).kind != CXType_Invalid;
        if (array || constructors.empty() || !std::all_of(constructors.begin(), constructors.end(), initializes))
          problem(out_.problems, m,
                  (mk == CXCursor_FieldDecl ? "member '" + spelling(m) : "base '" + spelling(clang_getTypeDeclaration(type))) +
                      "' constructed implicitly",
                  "its constructor reads built-in variables, which the port passes to it as arguments, and an implicit "
                  "construction passes none: initialize it in every constructor's member-initializer list of '" +
                      spelling(c) + "'" + (array ? " (an array's elements cannot be)" : ""));
      }
    }
  };
  walk(clang_getTranslationUnitCursor(unit_));
}

// A __device__ function that calls itself at run time, directly or through others: Metal has no recursion (its
// functions are inlined). Templates and constexpr functions are left alone: their recursion is resolved at compile
// time (`horner(x, cs...)`, `Unroll<N - 1>::run`), or else Metal's compiler (metalsim) names the instance.
void Translator::run_time_recursion() {
  const auto run_time = [&](const std::string& key) {
    const CXCursor f = functions_.at(key).cursor;
    const CXCursor parent = clang_getCursorSemanticParent(f);
    return clang_getCursorKind(f) != CXCursor_FunctionTemplate && !is_constexpr(f) &&
           clang_getCursorKind(parent) != CXCursor_ClassTemplate &&
           clang_getCursorKind(parent) != CXCursor_ClassTemplatePartialSpecialization;
  };
  const auto reaches = [&](const std::string& from, const std::string& to) {  // through run-time functions
    std::set<std::string> seen;
    std::vector<std::string> pending = {from};
    while (!pending.empty()) {
      const std::string key = pending.back();
      pending.pop_back();
      if (key == to) return true;
      if (!seen.insert(key).second || !run_time(key)) continue;
      pending.insert(pending.end(), functions_.at(key).callees.begin(), functions_.at(key).callees.end());
    }
    return false;
  };
  std::set<std::string> reported;
  for (const CallSite& site : call_sites_)
    if (functions_.count(site.caller) && run_time(site.caller) && run_time(site.callee) && reaches(site.callee, site.caller) &&
        reported.insert(site.caller).second)
      problem(functions_.at(site.caller).record.problems, site.call, "recursion: '" + spelling(functions_.at(site.callee).cursor) + "'",
              site.callee == site.caller ? "the function calls itself, and Metal has no recursion: write a loop (with an "
                                           "explicit stack where it needs one)"
                                         : "it calls '" + spelling(functions_.at(site.caller).cursor) +
                                               "' back, and Metal has no recursion: write a loop (with an explicit stack "
                                               "where it needs one)");
}

}  // namespace ksearch::translate::detail
