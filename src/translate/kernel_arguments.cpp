// One kernel launch of the entry (docs/TRANSLATE.md): its grid and threadgroup as directive
// expressions, the kernel's template arguments as MLX template arguments (dtypes, integers, enum
// values) or bindings of the body (functor structs, vector types), and each kernel parameter bound to
// the launch's argument for it at the top of the body (struct arguments: struct_arguments.cpp), with
// the buffers the launch writes.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <regex>

#include "core/error.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// CUDA scalar types -> MLX template dtypes.
const std::map<std::string, std::string> kTemplateTypes = {
    {"float", "float32"}, {"__half", "float16"}, {"half", "float16"}, {"__nv_bfloat16", "bfloat16"},
    {"int", "int32"},     {"unsigned int", "uint32"}, {"short", "int16"}, {"unsigned short", "uint16"},
    {"long", "int64"},    {"unsigned long", "uint64"}, {"long long", "int64"}, {"unsigned long long", "uint64"},
    {"char", "int8"},     {"signed char", "int8"}, {"unsigned char", "uint8"}, {"bool", "bool"}};

// The kernel a launch through a function pointer variable launches (`auto kernel = &k<256>; kernel<<<...>>>`): the
// function its initializer names, where nothing assigns the variable after it; for a launcher's parameter (`template
// <typename K> void launch(K kernel, ...)`, a lambda's `auto kernel`), the function the call passes, or the kernel of
// the pointer it passes. Else reported (the variable itself).
CXCursor Translator::kernel_of_pointer(CXCursor variable, const Launch& launch, CXCursor* written) {
  const auto passed = launcher_call_.uses.find(decl_key(variable));
  const bool parameter = clang_getCursorKind(variable) == CXCursor_ParmDecl && passed != launcher_call_.uses.end();
  CXCursor named = strip_casts(parameter ? passed->second.argument : clang_Cursor_getVarDeclInitializer(variable));
  while (clang_getCursorKind(named) == CXCursor_UnaryOperator && !children(named).empty()) named = strip_casts(children(named)[0]);
  CXCursor function = clang_getCursorReferenced(named);
  // (in a launcher template, `auto kernel = k<BM, BN>;` names the kernel template, its arguments written after it)
  if (clang_getCursorKind(named) == CXCursor_OverloadedDeclRef || clang_getCursorKind(function) == CXCursor_OverloadedDeclRef)
    function = clang_getOverloadedDecl(clang_getCursorKind(named) == CXCursor_OverloadedDeclRef ? named : function, 0);
  const bool assigned = host_.assignments.count(decl_key(variable)) > 0;
  const bool kernel = clang_getCursorKind(function) == CXCursor_FunctionDecl || clang_getCursorKind(function) == CXCursor_FunctionTemplate;
  if ((clang_getCursorKind(named) == CXCursor_DeclRefExpr || clang_getCursorKind(named) == CXCursor_OverloadedDeclRef) && kernel &&
      !assigned) {
    if (written) *written = named;
    return function;
  }
  if (parameter && !assigned && clang_getCursorKind(function) == CXCursor_VarDecl) return kernel_of_pointer(function, launch, written);
  problem(out_.problems, launch.call, "launch through the function pointer '" + spelling(variable) + "'",
          clang_getCursorKind(named) == CXCursor_ConditionalOperator || assigned
              ? "the kernel it launches is chosen at run time: write one launch per kernel in the branches of an if "
                "(`if (c) k<256><<<...>>>(...); else k<64><<<...>>>(...);`), which the port turns into a choice per workload"
              : "its initializer names no kernel of the file: launch the kernel by name");
  return variable;
}

// CUDA passes an absent optional tensor as a null pointer; MLX as a zero-size array with a has_<name> template bool:
// a kernel argument or struct field given the tensor (`value`, in parentheses or not) gets the null pointer back, so
// that the kernel's checks hold.
std::string Translator::null_if_absent(const std::string& value) const {
  std::string bare = value;
  while (bare.size() > 2 && bare.front() == '(' && bare.back() == ')') bare = bare.substr(1, bare.size() - 2);
  const TensorSpec* tensor = task_.find_tensor(bare);
  return tensor && tensor->optional ? fmt::format("has_{0} ? {0} : nullptr", bare) : value;
}

// One launch: its geometry and template arguments as directives, its kernel's parameters bound to
// its arguments, and (several launches) the buffers it writes.
void Translator::translate_launch(Launch& launch, const std::map<std::string, std::string>& initial,
                                  std::vector<std::string>& written) {
  std::vector<CXCursor> kids = children(launch.call);
  const std::vector<CXCursor> arguments = launch_arguments(launch.call);
  CXCursor callee = clang_getCursorReferenced(launch.call);
  // A launch in a template launcher names the kernel template and its arguments as written (after the kernel's name,
  // or after the template's in the initializer of a pointer it launches through).
  if (clang_Cursor_isNull(callee)) callee = called_declaration(launch.call);
  CXCursor written_callee = kids.at(0);
  if (!clang_Cursor_isNull(launch.chosen)) callee = launch.chosen;
  else if (clang_getCursorKind(callee) == CXCursor_VarDecl || clang_getCursorKind(callee) == CXCursor_ParmDecl)
    callee = kernel_of_pointer(callee, launch, &written_callee);
  // A kernel declared before the launch and defined after it: its definition (whose parameters the port binds).
  if (const CXCursor definition = clang_getCursorDefinition(callee); !clang_Cursor_isNull(definition)) callee = definition;
  CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
  launch.kernel = decl_key(clang_Cursor_isNull(pattern) ? callee : pattern);
  launch.section = spelling(clang_Cursor_isNull(pattern) ? callee : pattern);

  // Geometry: grid in threads = blocks x threads per block.
  std::vector<CXCursor> config;
  for (CXCursor k : children(kids.at(1)))
    if (clang_isExpression(clang_getCursorKind(k))) config.push_back(k);
  try {
    launch.blocks = directive_dim3(config.at(1), host_);
    launch.threads = directive_dim3(config.at(2), host_);
    if (config.size() > 3) {
      const std::string bytes = directive_expression(config[3], host_);
      if (bytes.find_first_not_of("(0)") != std::string::npos) launch.shared_bytes = bytes;  // (`0`, or `(0)` a launcher is given)
    }
  } catch (const Error& e) {
    problem(out_.problems, launch.call, "launch configuration", e.what());
  }
  // Template arguments of the kernel become MLX template arguments; a struct of the file (a functor
  // type: `map<Relu>`, or deduced from a `GeluOp()` argument) is named in the body instead, as MLX
  // templates are dtypes and values.
  std::vector<std::pair<size_t, CXType>> record_aliases;  // bindings naming a struct of the file, with its type
  // A scalar type's MLX dtype as the parameter's template argument; false where it has none.
  auto dtype_argument = [&](CXCursor parameter, const std::string& type) {
    const auto dtype = kTemplateTypes.find(type);
    if (dtype != kTemplateTypes.end()) launch.templates.push_back({spelling(parameter), dtype->second, true});
    return dtype != kTemplateTypes.end();
  };
  auto not_a_dtype = [&](const std::string& type) {
    problem(out_.problems, launch.call, "template argument", "type '" + type + "' is not an MLX template dtype or a struct of the file");
  };
  std::vector<std::string> closure_types;  // template type parameters given an extended lambda's type (host_lambda)
  auto type_argument = [&](CXCursor parameter, CXType type) {
    const std::string name = spelling(parameter);
    const CXType canonical = clang_getCanonicalType(type);
    if (canonical.kind == CXType_Record && take(clang_getTypeSpelling(canonical)).find("(lambda at ") != std::string::npos) {
      closure_types.push_back(name);  // (named after the argument's binding: its struct's type)
      return;
    }
    if (canonical.kind == CXType_Record && in_main_file(clang_getTypeDeclaration(canonical))) {
      // The device-code walk follows calls through the parameter (`f(r)` of `F f`) to this struct's operator().
      std::vector<CXType>& records = bound_records_[decl_key(parameter)];
      if (std::none_of(records.begin(), records.end(), [&](CXType r) { return clang_equalTypes(r, canonical); }))
        records.push_back(canonical);
      record_aliases.emplace_back(launch.bindings.size(), canonical);
      launch.bindings.push_back(fmt::format("using {} = {};", name, record_name(canonical)));
      return;
    }
    std::string t = take(clang_getTypeSpelling(canonical));
    if (t.rfind("const ", 0) == 0) t.erase(0, 6);
    if (dtype_argument(parameter, t)) return;
    // std::integral_constant<T, v> (a launcher's `std::integral_constant<int, 4>{}`, std::true_type): the port's own
    static const std::regex integral_constant(R"(^(?:cuda::)?std::(?:__\w+::)?integral_constant<.+, (.+)>$)");
    if (std::smatch constant; canonical.kind == CXType_Record && std::regex_match(t, constant, integral_constant)) {
      launch.bindings.push_back(fmt::format("using {} = ks_integral_constant<{}, {}>;", name,
                                            metal_type(clang_Type_getTemplateArgumentAsType(canonical, 0)), constant.str(1)));
      helpers_.insert("ks_integral_constant");
      return;
    }
    // A library function object the port writes as a helper (std::less<float>, cuda::std::plus<>, cuda::maximum<int>):
    // the helper's type, named in the body.
    if (canonical.kind == CXType_Record) {
      std::string templ = t.substr(0, t.find('<'));
      for (const std::string prefix : {"cuda::std::", "std::"})
        if (templ.rfind(prefix, 0) == 0) templ = "std::" + templ.substr(prefix.size());
      templ = std::regex_replace(templ, std::regex(R"(::__\w+::)"), "::");  // (libstdc++'s and libcu++'s inline namespaces)
      if (auto mapped = maps_.types.find(templ); mapped != maps_.types.end() && maps_.type_helpers.count(templ)) {
        std::string arguments;
        for (int i = 0; i < clang_Type_getNumTemplateArguments(canonical); ++i)
          arguments += (i ? ", " : "") + metal_type(clang_Type_getTemplateArgumentAsType(canonical, unsigned(i)));
        launch.bindings.push_back(fmt::format("using {} = {}<{}>;", name, mapped->second, arguments));
        helpers_.insert(maps_.type_helpers.at(templ).begin(), maps_.type_helpers.at(templ).end());
        return;
      }
    }
    if (canonical.kind == CXType_Record && from_prelude(clang_getTypeDeclaration(canonical)))
      // A CUDA vector type (`__nv_bfloat162`, `float4`): not an MLX template dtype, so named in the body too.
      launch.bindings.push_back(fmt::format("using {} = {};", name, metal_type(canonical)));
    else
      not_a_dtype(t);
  };
  // A built-in type written as a launcher's template argument (`k<float, 4>`): its canonical spelling (`unsigned` as
  // `unsigned int`, `long int` as `long`) names the MLX dtype.
  auto builtin_type_argument = [&](CXCursor parameter, const std::string& written) {
    if (!dtype_argument(parameter, canonical_builtin_type(written))) not_a_dtype(written);
  };
  // A value of an enum type (`template <Layout L>`): MLX template values are integers, and a scoped
  // enum does not compare with one, so the directive carries the integer (`KS_L`) and the body
  // binds the enum constant from it.
  auto value_argument = [&](CXCursor parameter, const std::string& value) {
    const std::string name = spelling(parameter);
    const CXType type = clang_getCanonicalType(clang_getCursorType(parameter));
    if (type.kind != CXType_Enum) return launch.templates.push_back({name, value});
    const std::string enum_type = take(clang_getTypeSpelling(type)), carrier = "KS_" + name;
    launch.templates.push_back({carrier, value});
    launch.bindings.push_back(fmt::format("constexpr {} {} = static_cast<{}>({});", enum_type, name, enum_type, carrier));
  };
  // A function given to a function-pointer template parameter (vLLM's `act_and_mul_kernel<scalar_t,
  // silu_kernel<scalar_t>>`): Metal has no function pointers, so the body names the function itself where it names
  // the parameter, and the call walk follows calls through the parameter to it. False where `written` is no function.
  std::function<bool(CXCursor, CXCursor)> function_argument = [&](CXCursor parameter, CXCursor written) {
    CXCursor named = strip_implicit(written);
    while (clang_getCursorKind(named) == CXCursor_UnaryOperator && !children(named).empty()) named = strip_implicit(children(named)[0]);
    CXCursor function = clang_getCursorReferenced(named);
    // a launcher's own function template parameter, passed on: the function its call gives
    if (auto passed = launcher_call_.functions.find(decl_key(function)); passed != launcher_call_.functions.end())
      return function_argument(parameter, passed->second);
    for (CXCursor k : children(named))
      if (clang_getCursorKind(k) == CXCursor_OverloadedDeclRef && clang_getNumOverloadedDecls(k) > 0) function = clang_getOverloadedDecl(k, 0);
    const CXCursorKind kind = clang_getCursorKind(function);
    if (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) return false;
    const std::string key = decl_key(parameter), name = rw_.render(begin_offset(named), end_offset(named));
    const auto [bound, inserted] = param_renames_.emplace(key, name);
    if (!inserted && bound->second != name)
      problem(out_.problems, launch.call, "template argument '" + name + "'",
              "the launches give '" + spelling(parameter) + "' different functions: launch one function per kernel");
    bound_functions_[key] = function;
    return true;
  };
  const std::vector<CXCursor> written_values = written_template_values(launch.call);
  if (!clang_Cursor_isNull(pattern)) {
    std::vector<CXCursor> parameters;
    for (CXCursor k : children(pattern))
      if (clang_getCursorKind(k) == CXCursor_TemplateTypeParameter || clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter ||
          clang_getCursorKind(k) == CXCursor_TemplateTemplateParameter)
        parameters.push_back(k);
    const int count = clang_Cursor_getNumTemplateArguments(callee);
    size_t values = 0;  // the expressions written before this argument
    const std::vector<WrittenArgument> written_arguments = written_template_arguments(unit_, written_callee);
    for (int i = 0; i < count && size_t(i) < parameters.size(); ++i) {
      const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(callee, unsigned(i));
      // An unnamed parameter (SFINAE's `std::enable_if_t<cond, int> = 0`, `typename = std::enable_if_t<...>`): the
      // body cannot read it, so MLX is given no argument for it.
      if (spelling(parameters[size_t(i)]).empty()) {
        values += kind == CXTemplateArgumentKind_Integral ? 1 : 0;
        continue;
      }
      if (clang_getCursorKind(parameters[size_t(i)]) == CXCursor_TemplateTemplateParameter) {
        // A class template given to a template template parameter (PyTorch's `cunn_SoftMaxForward<..., Epilogue>`):
        // the body names it where it names the parameter (MLX passes types and values only).
        if (size_t(i) < written_arguments.size()) {
          const auto [bound, inserted] = param_renames_.emplace(decl_key(parameters[size_t(i)]), written_arguments[size_t(i)].text);
          if (!inserted && bound->second != written_arguments[size_t(i)].text)
            problem(out_.problems, launch.call, "template argument '" + written_arguments[size_t(i)].text + "'",
                    "the launches give '" + spelling(parameters[size_t(i)]) + "' different templates: launch one per kernel");
        } else {
          problem(out_.problems, launch.call, "template argument", "a template template parameter's argument must be written at the launch");
        }
      } else if (kind == CXTemplateArgumentKind_Integral) {
        ++values;
        value_argument(parameters[size_t(i)], integral_template_argument(callee, unsigned(i), parameters[size_t(i)]));
      } else if (kind == CXTemplateArgumentKind_Type) {
        type_argument(parameters[size_t(i)], clang_Cursor_getTemplateArgumentType(callee, unsigned(i)));
      } else if (kind == CXTemplateArgumentKind_Declaration && values < written_values.size() &&
                 function_argument(parameters[size_t(i)], written_values[values++])) {
      } else {
        problem(out_.problems, launch.call, "template argument", "only integer and type template arguments are translated");
      }
    }
  }
  if (clang_getCursorKind(callee) == CXCursor_FunctionTemplate) {  // (a dependent launch, or one through a pointer to a template)
    std::vector<CXCursor> parameters;
    std::vector<std::string> names;
    for (CXCursor k : children(callee))
      if (clang_getCursorKind(k) == CXCursor_TemplateTypeParameter || clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter) {
        parameters.push_back(k);
        names.push_back(spelling(k));
      }
    // The explicit template arguments after the kernel's name, from its tokens: a built-in type (`float`) has no
    // cursor of its own among the callee's children, so pairing those children with the parameters would shift them.
    const std::vector<WrittenArgument> written = written_template_arguments(unit_, written_callee);
    for (size_t i = 0; i < written.size() && i < names.size(); ++i) {
      CXCursor cursor = clang_getNullCursor();  // the argument's cursor: a written type's TypeRef, else its expression
      for (CXCursor k : children(written_callee)) {
        const CXCursorKind kind = clang_getCursorKind(k);
        if (kind == CXCursor_OverloadedDeclRef || begin_offset(k) < written[i].begin || end_offset(k) > written[i].end) continue;
        if (clang_Cursor_isNull(cursor) || kind == CXCursor_TypeRef) cursor = k;  // `ops::Gelu`: the TypeRef after the NamespaceRef
      }
      if (clang_getCursorKind(parameters[i]) == CXCursor_TemplateTypeParameter) {
        if (!clang_Cursor_isNull(cursor)) type_argument(parameters[i], launcher_type(cursor));
        else builtin_type_argument(parameters[i], written[i].text);
        continue;
      }
      if (clang_Cursor_isNull(cursor)) {
        problem(out_.problems, launch.call, "template argument", "'" + written[i].text + "' is not an expression the launch can bind");
        continue;
      }
      if (function_argument(parameters[i], cursor)) continue;
      try {
        value_argument(parameters[i], directive_expression(cursor, host_));
      } catch (const Error& e) {
        problem(out_.problems, launch.call, "template argument", e.what());
      }
    }
    // A type left to deduction from a parameter of that very type (`Op op`), or a pointer or reference to it
    // (`const T* x`): the argument's type (a functor the launcher passes on), or what it points to.
    std::vector<bool> bound(names.size(), false);
    for (size_t i = 0; i < written.size() && i < names.size(); ++i) bound[i] = true;
    const std::vector<CXCursor> deduced_from = parameters_of(callee);
    for (size_t i = written.size(); i < names.size(); ++i)
      for (size_t j = 0; j < deduced_from.size() && j < arguments.size(); ++j) {
        const CXType declared = clang_getCursorType(deduced_from[j]);
        const bool indirect = is_pointer(declared) || is_reference(declared);
        std::string named = take(clang_getTypeSpelling(indirect ? pointee_type(declared) : declared));
        if (named.rfind("const ", 0) == 0) named.erase(0, 6);
        if (named != names[i]) continue;
        CXType given = launcher_type(arguments[j]);
        if (indirect && is_pointer(given)) given = pointee_type(given);  // (type_argument reads it without its const)
        type_argument(parameters[i], given);
        bound[i] = true;
        break;
      }
    // The rest take their defaults (`template <typename T, int BLOCK = 128>` launched as `k<T>`), which may name the
    // parameters before them.
    HostScope scope = host_;
    for (size_t i = 0; i < names.size(); ++i) {
      if (!bound[i] && !names[i].empty()) {  // (an unnamed one, SFINAE's, is never read)
        std::string text;  // the default as written, after its `=`
        bool after_equals = false;
        for (const std::string& t : tokens_of(unit_, parameters[i])) {
          if (after_equals) text += (text.empty() ? "" : " ") + t;
          after_equals |= t == "=";
        }
        CXCursor value = clang_getNullCursor();
        for (CXCursor k : children(parameters[i]))
          if (clang_isExpression(clang_getCursorKind(k)) || clang_getCursorKind(k) == CXCursor_TypeRef) value = k;
        if (text.empty()) {
          problem(out_.problems, launch.call, "template argument", "no argument is given or deduced for '" + names[i] + "'");
        } else if (clang_getCursorKind(parameters[i]) == CXCursor_TemplateTypeParameter) {
          if (!clang_Cursor_isNull(value)) type_argument(parameters[i], launcher_type(value));
          else builtin_type_argument(parameters[i], text);
        } else {
          try {
            value_argument(parameters[i], directive_expression(value, scope));
          } catch (const Error& e) {
            problem(out_.problems, launch.call, "template argument", e.what());
          }
        }
      }
      // a value the defaults after it may name
      for (const auto& t : launch.templates)
        if (t.name == names[i] && !t.typed) scope.parameters[decl_key(parameters[i])] = "(" + t.value + ")";
    }
  }
  // Kernel arguments: each kernel parameter is bound to the launch's expression for it.
  CXCursor kernel_decl = clang_Cursor_isNull(pattern) ? callee : pattern;
  const std::vector<CXCursor> kparams = parameters_of(kernel_decl);
  std::set<std::string> taken(entry_.args.begin(), entry_.args.end());
  for (const auto& b : scratch_) taken.insert(b.name);
  for (const auto& [cuda, metal] : kBuiltins) taken.insert(metal);
  std::vector<std::string> writes;
  // A non-const pointer (parameter, or field of a struct argument) writes its buffer: in MLX, an
  // output of this kernel.
  auto writes_through = [&](CXCursor value) {
    const std::string buffer = buffer_of(value);
    if (buffer.empty() || std::find(writes.begin(), writes.end(), buffer) != writes.end()) return;
    // (a launch given a pointer into a buffer an earlier one wrote, `y + done`, writes it too: no second report)
    if (std::find(written.begin(), written.end(), buffer) != written.end())
      problem(out_.problems, value, "in-place update across launches",
              "'" + buffer + "' was written by an earlier launch: an MLX kernel writes fresh output arrays, so a "
              "later kernel can read it but not update it " +
                  (clang_getCursorKind(strip_casts(value)) == CXCursor_DeclRefExpr
                       ? std::string("(write a new scratch buffer instead; where this launch writes another part of "
                                     "it, such as the remainder a vectorized kernel leaves, write the whole output from "
                                     "one launch)")
                       : "nor write another part of it through a pointer at an offset ('" + text(begin_offset(value), end_offset(value)) +
                             "'): write the whole output from one launch (a kernel covering the remainder too), or each "
                             "part to a scratch buffer that one last launch copies"));
    writes.push_back(buffer);
  };
  for (size_t i = 0; i < kparams.size() && i < arguments.size(); ++i) {
    CXCursor arg = arguments[i];
    CXType type = clang_getCursorType(kparams[i]);
    const CXType argument_type = clang_getCanonicalType(launcher_type(arg));
    const bool structure = argument_type.kind == CXType_Record && in_main_file(clang_getTypeDeclaration(argument_type));
    // A task input given, casts aside, to a pointer parameter without const (TVM's generated kernels and many
    // tutorials write `float* data`, given `x` or `const_cast<float*>(x)`; a cast to another element type is left as
    // written): MLX's inputs are read-only, so it is bound as an input, never an output, and a kernel writing through
    // it fails to compile instead.
    const bool writable_pointer = is_pointer(type) && !clang_isConstQualifiedType(pointee_type(type));
    const CXCursor uncast = strip_casts(arg);
    const std::string input = is_pointer(type) && clang_getCursorKind(uncast) == CXCursor_DeclRefExpr &&
                                      element_type(type) == element_type(clang_getCursorType(uncast))
                                  ? buffer_of(uncast)
                                  : "";
    const bool argument_is_input = !input.empty() && task_input(input);
    const bool given_input = writable_pointer && argument_is_input;  // bound by the input's name
    // A buffer given to a pointer parameter without const that the kernel only reads (TVM's kernels and tutorials'
    // second passes take an earlier kernel's scratch as `float* partial`) is no output of it either.
    const bool read_only = writable_pointer && (given_input || (!structure && !may_write_through(kernel_decl, kparams[i])));
    if (writable_pointer) {
      (read_only ? read_only_parameters_ : other_buffer_parameters_).insert(decl_key(kparams[i]));
      if (!read_only) writes_through(arg);
    } else if (is_pointer(type)) {
      (argument_is_input ? const_input_parameters_ : other_buffer_parameters_).insert(decl_key(kparams[i]));
    }
    std::string value = given_input ? input : "";
    if (!given_input) map_host_calls(arg);  // (an input's cast is not written)
    try {
      if (!structure && !given_input) value = rw_.render(begin_offset(arg), end_offset(arg));
      // A parameter the launch leaves to its default (`float scale = 1.0f`): libclang gives the default as an argument
      // written nowhere; its value is the default as the kernel declares it.
      // (A default is written on one declaration only: the first, where the kernel is declared before its definition.)
      if (!structure && !given_input && begin_offset(arg) == end_offset(arg))
        for (CXCursor declaration : {kernel_decl, clang_getCanonicalCursor(kernel_decl)})
          if (const std::vector<CXCursor> declared = parameters_of(declaration); i < declared.size())
            for (CXCursor k : children(declared[i]))
              if (clang_isExpression(clang_getCursorKind(k))) value = "(" + rw_.render(begin_offset(k), end_offset(k)) + ")";
    } catch (const Error& e) {
      problem(out_.problems, arg, "kernel argument", e.what());
      continue;
    }
    std::string name = spelling(kparams[i]);
    if (name.empty()) continue;  // an unnamed parameter (a tag such as `std::integral_constant<int, 4>{}`) nothing reads
    if (auto r = keyword_renames_.find(name); r != keyword_renames_.end()) name = r->second;
    const TensorSpec* tensor = task_.find_tensor(value);
    if (tensor && tensor->optional) value = null_if_absent(value);
    else if (value == name && !structure) continue;
    while (taken.count(name)) name += "_";
    if (name != spelling(kparams[i])) param_renames_[decl_key(kparams[i])] = name;
    taken.insert(name);
    const bool closure = take(clang_getTypeSpelling(argument_type)).find("(lambda at ") != std::string::npos;
    if (const std::string lambda = closure ? host_lambda(arg, launch.kernel) : ""; !lambda.empty()) {
      launch.bindings.push_back(fmt::format("auto {} = {};", name, lambda));
      // the kernel's template parameter its type is: the struct's type
      const std::string declared = take(clang_getTypeSpelling(type));
      for (const std::string& closure : closure_types)
        if (declared == closure || declared == "const " + closure) launch.bindings.push_back(fmt::format("using {} = decltype({});", closure, name));
      continue;
    }
    if (structure) {
      try {
        launch.bindings.push_back(struct_binding(argument_type, arg, name, writes_through));
        // A functor type whose pointer fields became template parameters names no type alone: the alias is the
        // argument's type, after it.
        const std::string record_key = decl_key(clang_getTypeDeclaration(argument_type));
        if (templated_records_.count(record_key))
          for (auto& [index, record] : record_aliases)
            if (decl_key(clang_getTypeDeclaration(record)) == record_key && !launch.bindings[index].empty()) {
              const std::string alias = launch.bindings[index].substr(0, launch.bindings[index].find(" = "));
              launch.bindings.push_back(fmt::format("{} = decltype({});", alias, name));
              launch.bindings[index].clear();
            }
      } catch (const Error& e) {
        problem(out_.problems, arg, "struct argument '" + spelling(kparams[i]) + "'", e.what());
      }
      continue;
    }
    // A read-only buffer (a task input, or a scratch buffer an earlier launch wrote), or a pointer into one or a cast
    // of one, is `const device T*`, or `const constant T*` where MLX passes fewer than 8 elements: its binding takes
    // the buffer's own type, as Metal converts no pointer between the two.
    // (an entry's alias of the buffer, `const float* merged = partials;`, is rendered as its value in parentheses)
    std::string bare = value;
    while (bare.size() > 2 && bare.front() == '(' && bare.back() == ')' && bare.find_first_of("()", 1) == bare.size() - 1)
      bare = bare.substr(1, bare.size() - 2);
    const bool scratch =
        std::any_of(scratch_.begin(), scratch_.end(), [&](const Scratch& b) { return b.name == bare || (!b.view.empty() && b.view == bare); });
    if ((tensor || scratch || !buffer_of(arg).empty()) && is_pointer(type) && (clang_isConstQualifiedType(pointee_type(type)) || read_only)) {
      launch.bindings.push_back(fmt::format("auto {} = {};", name, value));
      continue;
    }
    std::string type_text = metal_type(type);
    if (is_pointer(type)) type_text = "device " + type_text;
    else if (!clang_isConstQualifiedType(type)) type_text = "const " + type_text;
    launch.bindings.push_back(fmt::format("{} {} = {};", type_text, name, value));
  }
  std::erase(launch.bindings, std::string());  // the aliases moved after their arguments
  bind_constant_symbols(kernel_decl, launch);
  // A struct's scratch buffer is viewed as the struct first: writable where this kernel writes it.
  for (const Scratch& b : scratch_) {
    const std::regex named("\\b" + b.view + "\\b");
    if (b.view.empty() || std::none_of(launch.bindings.begin(), launch.bindings.end(),
                                       [&](const std::string& line) { return std::regex_search(line, named); }))
      continue;
    if (std::find(writes.begin(), writes.end(), b.name) != writes.end()) {
      launch.bindings.insert(launch.bindings.begin(),
                             fmt::format("device {0}* {1} = reinterpret_cast<device {0}*>({2});", b.record, b.view, b.name));
    } else {
      launch.bindings.insert(launch.bindings.begin(), fmt::format("const auto {} = ks_ro_cast<{}>({});", b.view, b.record, b.name));
      helpers_.insert("ks_ro_cast");
    }
  }
  launch.outputs = writes;
  written.insert(written.end(), writes.begin(), writes.end());
  // MLX fills every output of a kernel with its one init_value.
  for (const std::string& buffer : writes) {
    const auto value = initial.find(buffer);
    if (value == initial.end()) continue;
    if (!launch.init_value.empty() && launch.init_value != value->second)
      problem(out_.problems, launch.call, "outputs with different initial values",
              fmt::format("the kernel writes buffers filled with {} and {} before it: MLX gives every output of a kernel "
                          "one init_value (fill them in separate kernels, or write the value in this one)",
                          launch.init_value, value->second));
    launch.init_value = value->second;
  }
}

}  // namespace ksearch::translate::detail
