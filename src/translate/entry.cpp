// The entry (docs/TRANSLATE.md): the host function the task's [entry.cuda] names, walked for its
// kernel launches (in launchers it calls too, their parameters bound to the call's arguments), the
// buffers it cudaMallocs (scratch buffers) and zeroes (init_value), the pure host helpers its kernel
// arguments call, and the values its variables have where a launch reads them.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// The entry: its only kernel launch, the launch's geometry as directives, the kernel's arguments.
void Translator::find_launch() {
  CXCursor entry = clang_getNullCursor();
  std::pair<Translator*, CXCursor*> search(this, &entry);
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<std::pair<Translator*, CXCursor*>*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        if (clang_getCursorKind(c) == CXCursor_FunctionDecl && spelling(c) == self->first->entry_.function &&
            clang_isCursorDefinition(c))
          *self->second = c;
        return clang_getCursorKind(c) == CXCursor_UnexposedDecl || clang_getCursorKind(c) == CXCursor_Namespace
                   ? CXChildVisit_Recurse
                   : CXChildVisit_Continue;
      },
      &search);
  if (clang_Cursor_isNull(entry)) {
    out_.problems.push_back({file_, 0, 0, "entry", "no definition of the entry function '" + entry_.function + "'"});
    return;
  }
  // Entry parameters are the task's arguments, in [entry.cuda] order (a trailing stream is extra).
  const std::vector<CXCursor> params = parameters_of(entry);
  for (size_t i = 0; i < params.size() && i < entry_.args.size(); ++i) host_.parameters[decl_key(params[i])] = entry_.args[i];
  collect_assignments(entry, host_);
  for (size_t i = 0; i < params.size() && i < entry_.args.size(); ++i) {
    // (A parameter assigned in the entry is written as its value where it is used, below.)
    if (spelling(params[i]) != entry_.args[i] && !host_.assignments.count(decl_key(params[i]))) {
      // The kernel's arguments are rendered from the entry's expressions: use the task's names.
      std::tuple<Translator*, std::string, std::string> rename(this, decl_key(params[i]), entry_.args[i]);
      clang_visitChildren(
          entry,
          [](CXCursor c, CXCursor, CXClientData data) {
            auto* p = static_cast<std::tuple<Translator*, std::string, std::string>*>(data);
            if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(c)) == std::get<1>(*p))
              if (auto at = std::get<0>(*p)->name_range(c)) std::get<0>(*p)->rw_.replace(at->first, at->second, std::get<2>(*p));
              else std::get<0>(*p)->macro_problem(std::get<0>(*p)->out_.problems, c);
            return CXChildVisit_Recurse;
          },
          &rename);
    }
  }
  // The launches; locals of the entry used in kernel arguments are replaced by their values there
  // (cudaMalloc'd buffers excepted: they become scratch buffers).
  struct Walk {
    std::vector<CXCursor> launches;
    // The launcher calls being walked, outermost first (a launcher may call another: FlashAttention's BOOL_SWITCH, a
    // lambda calling a lambda that launches), with the scope each call's launcher is read in.
    struct Level {
      CXCursor call, launcher;
      HostScope scope;
    };
    std::vector<Level> path;
    std::vector<std::vector<Level>> paths;           // per launch: the calls it is made through
    std::vector<std::optional<LauncherCall>> calls;  // what each launch in a launcher is translated with
    bool guarded = false;
    std::map<std::string, std::string> filled;  // buffers a cudaMemset fills before any launch names them, and the value
    std::vector<std::vector<std::string>> buffers;  // per launch: the buffer each argument names ("" for none)
    // the ifs (offset) and branches (1: then, 2: else) around the node walked, and around each launch
    std::vector<std::pair<unsigned, size_t>> branches;
    std::vector<std::vector<std::pair<unsigned, size_t>>> launch_branches;
    int switches = 0;          // the switch statements around the node walked
    bool switched = false;     // a launch is inside a switch
  } walk;
  std::function<void(CXCursor, int, bool)> walk_fn = [&](CXCursor c, int loop_depth, bool guarded) {
    const std::vector<CXCursor> kids = children(c);
    for (size_t index = 0; index < kids.size(); ++index) {
      const CXCursor k = kids[index];
      const CXCursorKind kind = clang_getCursorKind(k);
      // (a branch of an if, itself a launch or a launcher's call too: `if (c) launch<256>(...); else launch<64>(...);`)
      struct Branch {
        std::vector<std::pair<unsigned, size_t>>& branches;
        const bool taken;
        ~Branch() {
          if (taken) branches.pop_back();
        }
      } branch{walk.branches, clang_getCursorKind(c) == CXCursor_IfStmt && index > 0};
      if (branch.taken) walk.branches.push_back({begin_offset(c), index});
      // (an extended __device__ lambda's body is device code, ported where a kernel receives it: host_lambda; a host
      // lambda's body runs where it is called, so one that launches is walked at its calls, as a launcher)
      if (kind == CXCursor_LambdaExpr && (is_device_lambda(k) || launches(k))) continue;
      if (kind == CXCursor_CallExpr) {
        bool is_launch = false;
        for (CXCursor kk : children(k))
          if (clang_getCursorKind(kk) == CXCursor_CallExpr && spelling(kk) == "__cudaPushCallConfiguration") is_launch = true;
        if (is_launch) {
          walk.buffers.emplace_back();
          for (CXCursor argument : launch_arguments(k)) walk.buffers.back().push_back(buffer_of(argument));
          walk.launches.push_back(k);
          walk.paths.push_back(walk.path);
          walk.calls.push_back(walk.path.empty() ? std::nullopt : std::optional<LauncherCall>(launcher_call_));
          walk.launch_branches.push_back(walk.branches);
          walk.switched |= walk.switches > 0;
          if (loop_depth > 0)
            problem(out_.problems, k, "kernel launch in a loop",
                    "a launch repeated by a host loop (the count known only at run time) is not translated: unroll it or move the loop into the kernel");
          if (guarded) walk.guarded = true;
        }
        add_host_helper(k);
        if (const CXCursor launcher = launching_function(k); !clang_Cursor_isNull(launcher)) {
          // A launcher's call is walked as part of the entry, its parameters bound to the call's arguments.
          KeepHostScope keep{*this};
          const LauncherCall caller_call = launcher_call_;
          const bool recursive = std::any_of(walk.path.begin(), walk.path.end(), [&](const Walk::Level& l) {
            return clang_equalCursors(l.launcher, launcher);
          });
          const std::string why = recursive ? "it calls itself, so how many launches it makes is known only at run time" : bind_launcher(k, launcher);
          if (why.empty()) {
            walk.path.push_back({k, launcher, host_});
            walk_fn(launcher, loop_depth, guarded);
            walk.path.pop_back();
            launcher_call_ = caller_call;
          } else {
            problem(out_.problems, k, "kernel launch in '" + spelling(launcher) + "'",
                    fmt::format("the entry calls a host function of the file that launches kernels (line {}), and {}: "
                                "launch from the entry",
                                position(launcher).line, why));
          }
        }
        const std::string name = spelling(k);
        if (name == "cudaMalloc" || name == "cudaMallocAsync") {
          add_scratch(k);
          continue;
        }
        if (name == "cudaFree" || name == "cudaFreeAsync") continue;  // MLX frees intermediate arrays itself
        if (name == "cudaMemsetAsync" || name == "cudaMemset") {
          const auto [filled, value] = memset_fill(k);
          const bool named = std::any_of(walk.buffers.begin(), walk.buffers.end(), [&](const std::vector<std::string>& b) {
            return std::find(b.begin(), b.end(), filled) != b.end();
          });
          if (!filled.empty() && !named) {
            walk.filled[filled] = value;
            out_.notes.push_back(fmt::format("line {}: {} of {} before any launch uses it became `init_value: {}` of the kernel "
                                             "that writes it (MLX fills every output of that kernel with it)",
                                             position(k).line, name, filled, value));
            continue;
          }
          problem(out_.problems, k, name, "only zeroing a task output or scratch buffer (or filling an integer output with "
                                          "one byte, as 0xFF gives -1) before any launch uses it is translated "
                                          "(init_value); other host-side memory operations have no MLX counterpart");
        }
        if (name == "cudaMemcpyAsync" || name == "cudaMemcpy")
          problem(out_.problems, k, name,
                  "host-side copies between launches have no MLX kernel counterpart: where the copy gives a kernel "
                  "that updates a buffer in place its starting values, let the kernel read them from the copy's source "
                  "and write the buffer (out of place)");
        if (name == "cudaLaunchKernel" || name == "cudaLaunchCooperativeKernel")
          problem(out_.problems, k, name, "a launch through the runtime API (its arguments an array of addresses) is not "
                                          "followed: write it as kernel<<<grid, block, shared_bytes, stream>>>(arguments)");
        if (name == "cudaMemcpyToSymbol" || name == "cudaMemcpyToSymbolAsync") constant_symbol_copy(k);
        host_cub_call(k);
      }
      if (kind == CXCursor_VarDecl) add_scratch_part(k);
      if (kind == CXCursor_MemberRefExpr && struct_field_edit(k)) continue;
      if (kind == CXCursor_DeclRefExpr) {
        CXCursor decl = clang_getCursorReferenced(k);
        // (a part of a workspace, add_scratch_part, stays a scratch buffer only where the launches' buffers say so)
        const Scratch* scratch = scratch_of(decl_key(decl));
        const bool local = clang_getCursorKind(decl) == CXCursor_VarDecl && in_main_file(decl) &&
                           clang_getCursorSemanticParent(decl).kind != CXCursor_TranslationUnit && (!scratch || !scratch->part_of.empty());
        const bool assigned_parameter = host_.parameters.count(decl_key(decl)) && host_.assignments.count(decl_key(decl));
        if (local || assigned_parameter) {
          if (auto at = name_range(k))
            rw_.replace(at->first, at->second, [this, decl, at = begin_offset(k)] {
              return scratch_of(decl_key(decl)) ? spelling(decl) : host_value(decl, at);
            });
          else macro_problem(out_.problems, k);
        }
        if (const Scratch* b = scratch_of(decl_key(decl)); b && !b->view.empty()) {
          if (auto at = name_range(k)) rw_.replace(at->first, at->second, b->view);
          else macro_problem(out_.problems, k);
        }
      }
      if (clang_getCursorKind(k) == CXCursor_CStyleCastExpr || clang_getCursorKind(k) == CXCursor_CXXReinterpretCastExpr ||
          clang_getCursorKind(k) == CXCursor_CXXStaticCastExpr)
        if (is_pointer(clang_getCursorType(k))) map_cast(k);
      // (`do { ... } while (0)`, the body of an error-checking macro, runs once)
      const bool once = kind == CXCursor_DoStmt && [&] {
        const std::vector<CXCursor> parts = children(k);
        return parts.size() == 2 && integer_constant(parts[1]) == 0;
      }();
      const bool loop = kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt || (kind == CXCursor_DoStmt && !once);
      walk.switches += kind == CXCursor_SwitchStmt;
      walk_fn(k, loop_depth + (loop ? 1 : 0), guarded || kind == CXCursor_IfStmt);
      walk.switches -= kind == CXCursor_SwitchStmt;
    }
  };
  walk_fn(entry, 0, false);
  if (walk.launches.empty()) {
    problem(out_.problems, entry, "entry", "the entry launches no kernel");
    return;
  }
  // A workspace split into parts (add_scratch_part): the parts launches name are the candidate's buffers and the
  // allocation none. Where launches name the allocation too, its aliases at offset 0 and read-only parts stay views of it
  // (rendered as their values); a writable part at an offset besides it is reported.
  const auto named = [&](const std::string& buffer) {
    return walk.filled.count(buffer) || std::any_of(walk.buffers.begin(), walk.buffers.end(), [&](const auto& b) {
             return std::find(b.begin(), b.end(), buffer) != b.end();
           });
  };
  std::erase_if(scratch_, [&](const Scratch& p) {
    if (p.part_of.empty()) return false;
    const Scratch& whole = *std::find_if(scratch_.begin(), scratch_.end(), [&](const Scratch& b) { return b.name == p.part_of; });
    return !named(p.name) || (named(whole.name) && (p.read_only || p.elements == whole.elements));
  });
  std::erase_if(scratch_, [&](const Scratch& whole) {
    std::vector<std::string> parts;
    for (const Scratch& p : scratch_)
      if (p.part_of == whole.name) parts.push_back(p.name);
    if (parts.empty()) return false;
    if (named(whole.name))
      problem(out_.problems, entry, "scratch buffer '" + whole.name + "'",
              fmt::format("split into parts at offsets that launches write ({}), it is also given to a launch or filled "
                          "whole, and MLX kernels write fresh arrays, so the parts are scratch buffers of their own: give "
                          "the kernels and fills only the parts, or allocate each part separately",
                          fmt::join(parts, ", ")));
    return !named(whole.name);
  });
  // Launches in the branches of an if or the cases of a switch: the entry picks one per call, and so
  // does the candidate, through directives that choose per workload.
  // Launches that are not alternatives run in sequence: a multi-kernel candidate.
  bool alternatives = walk.switched;
  for (size_t i = 0; i < walk.launches.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      for (const auto& [at, branch] : walk.launch_branches[i])
        for (const auto& [other_at, other_branch] : walk.launch_branches[j])
          alternatives |= at == other_at && branch != other_branch;
  if (walk.launches.size() > 1) {
    // The choice among launches made through the same first `depth` calls: in the entry, or in the launcher of the
    // last of those calls (read with its arguments); launches through one call there are chosen among inside it.
    std::function<std::shared_ptr<Choice>(const std::vector<int>&, size_t)> choice_at = [&](const std::vector<int>& inside,
                                                                                             size_t depth) {
      const std::vector<Walk::Level>& through = walk.paths[size_t(inside.front())];
      std::vector<CXCursor> anchors(walk.launches.size(), clang_getNullCursor());
      for (int i : inside) {
        const std::vector<Walk::Level>& own = walk.paths[size_t(i)];
        anchors[size_t(i)] = own.size() > depth ? own[depth].call : walk.launches[size_t(i)];
      }
      KeepHostScope keep{*this};
      if (depth > 0) host_ = through[depth - 1].scope;
      return choice_in(depth > 0 ? through[depth - 1].launcher : entry, anchors,
                       [&](const std::vector<int>& same_call) { return choice_at(same_call, depth + 1); });
    };
    std::vector<int> all(walk.launches.size());
    std::iota(all.begin(), all.end(), 0);
    try {
      dispatch_ = choice_at(all, 0);
    } catch (const Error& e) {
      if (alternatives) return problem(out_.problems, walk.launches.back(), "alternative launches in branches of the entry", e.what());
    }
  }
  // One launch through a function pointer that a conditional initializes (`auto k = big ? f<256> : f<64>;
  // k<<<...>>>(...)`): alternatives, one per kernel it may name, chosen as the conditional chooses.
  std::vector<CXCursor> chosen;
  if (walk.launches.size() == 1) {
    dispatch_ = in_call(walk.calls[0], [&] { return pointer_choice(walk.launches[0], chosen); });
    if (!chosen.empty()) {
      walk.launches.assign(chosen.size(), walk.launches[0]);
      walk.calls.assign(chosen.size(), walk.calls[0]);
      walk.buffers.assign(chosen.size(), walk.buffers[0]);
    }
  }
  if (dispatch_) {
    if (!scratch_.empty())
      return problem(out_.problems, walk.launches.back(), "alternative launches in branches of the entry",
                     "alternatives with cudaMalloc'd scratch buffers are not translated: keep one");
  }
  if (walk.guarded && !dispatch_)
    out_.notes.push_back("the launch's guard in the entry (e.g. `if (rows > 0)`) was dropped: every workload launches");
  std::map<std::string, std::string> initial;  // buffers' values before the launches
  for (const auto& [buffer, value] : walk.filled) initial[buffer] = value;
  if (!dispatch_) fold_fills(walk.launches, walk.calls, walk.buffers, initial);
  std::vector<std::string> written;
  std::map<std::string, int> sections;
  for (size_t i = 0; i < walk.launches.size(); ++i) {
    Launch launch;
    launch.call = walk.launches[i];
    if (!chosen.empty()) launch.chosen = chosen[i];
    std::vector<std::string> none_written;  // alternatives write the same outputs, each on its own
    in_call(walk.calls[i], [&] { translate_launch(launch, initial, dispatch_ ? none_written : written); });
    // A kernel launched twice gets a numbered section: MLX kernel names are unique.
    const int n = ++sections[launch.section];
    if (n > 1) launch.section += "_" + std::to_string(n);
    launches_.push_back(std::move(launch));
  }
  if (!dispatch_ && (launches_.size() > 1 || !scratch_.empty())) {
    for (const auto& launch : launches_)
      if (launch.outputs.empty())
        problem(out_.problems, launch.call, "kernel launch",
                "the kernel writes no task output or scratch buffer through a non-const pointer parameter");
    for (const auto& t : task_.outputs)
      if (std::find(written.begin(), written.end(), t.name) == written.end())
        problem(out_.problems, entry, "task output",
                "no launch writes '" + t.name + "' through a non-const pointer parameter (the outputs of a multi-kernel candidate)");
  }
}

// The host function of the file a call calls, when its body launches a kernel (a launcher the
// entry delegates to); else a null cursor.
CXCursor Translator::launching_function(CXCursor call) {
  CXCursor callee = called_declaration(call);  // (in a template, a dependent call names its overloads: `launch<B * 2>(...)`)
  // A call through a launcher's parameter given a lambda (`f(std::integral_constant<int, 256>{})` in `template <typename
  // F> void dispatch_block(int64_t cols, F&& f)`): the lambda's call operator.
  if (const std::vector<CXCursor> kids = children(call); !kids.empty()) {
    const auto given = launcher_call_.uses.find(decl_key(clang_getCursorReferenced(strip_implicit(kids[0]))));
    if (clang_getCursorKind(strip_implicit(kids[0])) == CXCursor_DeclRefExpr && given != launcher_call_.uses.end())
      if (const CXCursor lambda = lambda_operator(given->second.argument); !clang_Cursor_isNull(lambda)) callee = lambda;
  }
  if (clang_Cursor_isNull(callee)) return callee;
  const CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
  CXCursor definition = clang_getCursorDefinition(clang_Cursor_isNull(pattern) ? callee : pattern);
  // An explicit specialization (`template <> void launch<1024>(...) {...}`) has a body of its own (where an implicit
  // instantiation's name is the template's).
  if (const CXCursor own = clang_getCursorDefinition(callee);
      !clang_Cursor_isNull(pattern) && !clang_Cursor_isNull(own) && position(own).offset != position(definition).offset)
    definition = own;
  if (clang_Cursor_isNull(definition) || !in_main_file(definition) || has_child(definition, CXCursor_CUDAGlobalAttr))
    return clang_getNullCursor();
  // (a launcher of launchers; recursion is not searched)
  if (!searching_.insert(decl_key(definition)).second) return clang_getNullCursor();
  bool launcher = launches(definition);
  // (a function given a lambda that launches, which it calls: `dispatch_block(cols, [&](auto block) {...})`)
  for (int a = 0; !launcher && a < clang_Cursor_getNumArguments(call); ++a)
    if (const CXCursor lambda = lambda_operator(clang_Cursor_getArgument(call, unsigned(a))); !clang_Cursor_isNull(lambda))
      launcher = launches(clang_getCursorDefinition(lambda));
  searching_.erase(decl_key(definition));
  return launcher ? definition : clang_getNullCursor();
}

// The call operator of the lambda an expression gives (`[&](auto b) {...}`, or a local initialized with one), or a
// null cursor.
CXCursor Translator::lambda_operator(CXCursor expression) const {
  CXCursor e = strip_casts(expression);
  if (clang_getCursorKind(e) == CXCursor_DeclRefExpr && clang_getCursorKind(clang_getCursorReferenced(e)) == CXCursor_VarDecl)
    e = strip_casts(clang_Cursor_getVarDeclInitializer(clang_getCursorReferenced(e)));
  if (clang_getCursorKind(e) != CXCursor_LambdaExpr) return clang_getNullCursor();
  return method_of(clang_getTypeDeclaration(clang_getCursorType(e)), "operator()");
}

// A launch's arguments (after its configuration), with a launcher's pack expanded (`kernel<<<...>>>(args...)` given
// `x, y, cols`: those three).
std::vector<CXCursor> Translator::launch_arguments(CXCursor launch) const {
  const std::vector<CXCursor> parts = children(launch);
  std::vector<CXCursor> arguments;
  for (size_t a = 2; a < parts.size(); ++a) {
    const std::vector<CXCursor> pattern = clang_getCursorKind(parts[a]) == CXCursor_PackExpansionExpr ? children(parts[a]) : std::vector<CXCursor>{};
    const auto pack = pattern.size() == 1 ? launcher_call_.packs.find(decl_key(clang_getCursorReferenced(strip_implicit(pattern[0]))))
                                          : launcher_call_.packs.end();
    if (pack != launcher_call_.packs.end()) arguments.insert(arguments.end(), pack->second.begin(), pack->second.end());
    else arguments.push_back(parts[a]);
  }
  return arguments;
}

// Whether code launches a kernel, or calls a function of the file that does.
bool Translator::launches(CXCursor code) {
  std::pair<Translator*, bool> search(this, false);
  clang_visitChildren(
      code,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<std::pair<Translator*, bool>*>(data);
        if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
        s->second = spelling(c) == "__cudaPushCallConfiguration" || !clang_Cursor_isNull(s->first->launching_function(c));
        return s->second ? CXChildVisit_Break : CXChildVisit_Recurse;
      },
      &search);
  return search.second;
}

// Binds a launcher's template parameters and parameters to what `call` passes: directive values for
// sizes (host_.parameters), task names for tensors, and edits that write each use of a parameter in
// its body as the argument (the launch's kernel arguments are rendered from there). Returns why the
// launcher cannot be followed, or "".
std::string Translator::bind_launcher(CXCursor call, CXCursor launcher) {
  const CXCursor specialization = clang_getCursorReferenced(call);
  std::vector<CXCursor> template_parameters;
  for (CXCursor k : children(launcher))
    if (clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter || clang_getCursorKind(k) == CXCursor_TemplateTypeParameter)
      template_parameters.push_back(k);
  std::map<std::string, LauncherUse>& uses = launcher_call_.uses;
  const std::vector<CXCursor> written = written_template_values(call);
  size_t values = 0;  // the expressions written before this argument
  for (size_t i = 0; i < template_parameters.size(); ++i) {
    const std::string key = decl_key(template_parameters[i]);
    const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, unsigned(i));
    if (kind == CXTemplateArgumentKind_Declaration && values < written.size()) {
      launcher_call_.functions[key] = written[values++];  // a function, followed where a launch passes it on
    } else if (kind == CXTemplateArgumentKind_Integral) {
      ++values;
      uses[key].value = integral_template_argument(specialization, unsigned(i), template_parameters[i]);
      host_.parameters[key] = uses[key].value;
    } else if (kind == CXTemplateArgumentKind_Type) {
      launcher_call_.types[key] = clang_Cursor_getTemplateArgumentType(specialization, unsigned(i));
      host_.types[key] = launcher_call_.types[key];
    } else if (kind == CXTemplateArgumentKind_Pack) {
      // (`typename... Args` of a parameter pack: its arguments are the call's, launch_arguments)
    } else if (kind == CXTemplateArgumentKind_Invalid && clang_getCursorKind(template_parameters[i]) == CXCursor_NonTypeTemplateParameter &&
               values < written.size()) {
      // (libclang reads no arguments of a method template's specialization, `launch_with<256>(...)`: the value written)
      try {
        uses[key].value = host_.parameters[key] = "(" + directive_expression(written[values++], host_) + ")";
      } catch (const Error& e) {
        return "its template argument '" + spelling(template_parameters[i]) + "' has no value here: " + e.what();
      }
    } else {
      return "its template argument '" + spelling(template_parameters[i]) + "' is not an integer or a type";
    }
  }
  // A static method of a class template (`Rowsum<256>::run(...)`): the class's parameters are the type's arguments.
  if (clang_getCursorKind(clang_getCursorSemanticParent(launcher)) == CXCursor_ClassTemplate)
    for (const auto& [parameter, argument] : class_template_arguments(clang_getCursorType(clang_getCursorSemanticParent(specialization)))) {
      const std::string key = decl_key(parameter);
      if (argument.type.kind != CXType_Invalid) {
        launcher_call_.types[key] = host_.types[key] = argument.type;
      } else {
        uses[key].value = host_.parameters[key] = argument.value;
      }
    }
  // A method called on a local struct of the entry (`plan.launch(x, y, stream)`): its fields are that local's.
  if (clang_getCursorKind(launcher) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(launcher) && !is_lambda_operator(launcher)) {
    host_.objects["this"] = method_object(call, host_);
    if (clang_Cursor_isNull(host_.objects["this"].var)) return "it is a method called on something other than a local struct of the entry";
  }
  const std::vector<CXCursor> parameters = parameters_of(launcher);
  const int object = object_arguments(call, launcher);
  for (size_t i = 0; i < parameters.size() && int(i) + object < clang_Cursor_getNumArguments(call); ++i) {
    const CXCursor argument = clang_Cursor_getArgument(call, unsigned(int(i) + object));
    const std::string key = decl_key(parameters[i]);
    const std::string buffer = buffer_of(argument);
    const std::vector<std::string> tokens = tokens_of(unit_, parameters[i]);
    if (std::find(tokens.begin(), tokens.end(), "...") != tokens.end()) {
      // a pack (`auto... args`, `Args... args`): the call's remaining arguments, which `args...` in a launch stands for
      std::vector<CXCursor>& pack = launcher_call_.packs[key];
      pack.clear();
      for (int a = int(i) + object; a < clang_Cursor_getNumArguments(call); ++a) pack.push_back(clang_Cursor_getArgument(call, unsigned(a)));
      break;
    }
    const CXType given_type = clang_getCanonicalType(clang_getCursorType(argument));
    const bool record = given_type.kind == CXType_Record ||
                        (given_type.kind == CXType_Pointer && clang_getCanonicalType(clang_getPointeeType(given_type)).kind == CXType_Record);
    if (const StructLocal given = struct_local(argument, begin_offset(call), host_); record && !clang_Cursor_isNull(given.var)) {
      host_.objects[key] = given;  // (a struct the entry makes, by value, reference or address: `launch(params, stream)`)
    } else if (is_pointer(clang_getCursorType(parameters[i])) && !buffer.empty()) {
      host_.parameters[key] = buffer;
    } else if (take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(parameters[i])))).find("dim3") != std::string::npos) {
      try {
        host_.dims[key] = directive_dim3(argument, host_);
      } catch (const Error&) {  // (reported where a launch uses it)
      }
    } else if (!is_pointer(clang_getCursorType(parameters[i]))) {
      try {
        host_.parameters[key] = "(" + directive_expression(argument, host_) + ")";
      } catch (const Error&) {  // not a size (a stream): only its uses in kernel arguments matter
      }
    }
    uses[key] = {"", begin_offset(argument), end_offset(argument), clang_getCursorKind(strip_implicit(argument)) != CXCursor_DeclRefExpr,
                 argument};
    host_.types[key] = clang_getCursorType(argument);  // (`decltype(parameter)::value` in a launch size)
  }
  // Uses of the parameters in the launcher's body, written as the call being translated passes them
  // (a launcher called twice, once per branch of a dispatch, is translated once per call).
  collect_assignments(launcher, host_);
  launcher_call_.scope = host_;
  if (!launchers_edited_.insert(decl_key(launcher)).second) return "";
  std::pair<Translator*, std::map<std::string, LauncherUse>*> context(this, &uses);
  clang_visitChildren(
      launcher,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* ctx = static_cast<std::pair<Translator*, std::map<std::string, LauncherUse>*>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        const std::string key = decl_key(clang_getCursorReferenced(c));
        Translator* self = ctx->first;
        const auto at = self->name_range(c);
        if (!ctx->second->count(key) || !at) return CXChildVisit_Recurse;
        self->rw_.replace(at->first, at->second, [self, key] {
          const LauncherUse& u = self->launcher_call_.uses.at(key);
          if (!u.value.empty()) return u.value;
          const std::string r = self->rw_.render(u.b, u.e);
          return u.parenthesize ? "(" + r + ")" : r;
        });
        return CXChildVisit_Recurse;
      },
      &context);
  return "";
}

// The math functions a kernel argument calls on the host (`1.0f / sqrtf((float)d)`), also in the initializer of a local
// of the entry or a launcher it names (`const float scale = 1.0f / sqrtf(float(D)); f<<<...>>>(..., scale)`): the
// argument becomes a binding at the top of the kernel's body, where they are Metal's. Once per call, as alternatives
// render an argument again. The argument itself is visited first (`rsqrtf(float(d))`, `scale`), then what it holds.
void Translator::map_host_calls(CXCursor argument) {
  std::pair<Translator*, Function> context(this, Function{argument});
  const CXCursorVisitor visit = [](CXCursor c, CXCursor, CXClientData data) {
    auto* ctx = static_cast<std::pair<Translator*, Function>*>(data);
    Translator* self = ctx->first;
    const CXCursor callee = clang_getCursorReferenced(c);
    const CXCursorKind kind = clang_getCursorKind(callee);
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && kind == CXCursor_VarDecl && self->in_main_file(callee) &&
        clang_getCursorKind(clang_getCursorSemanticParent(callee)) != CXCursor_TranslationUnit &&
        self->host_calls_.insert(begin_offset(callee)).second) {  // (a local's offset: its initializer is mapped once)
      const std::vector<CXCursor> kids = children(callee);
      if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back()))) self->map_host_calls(kids.back());
      return CXChildVisit_Continue;
    }
    // (a const_cast of a buffer, `{const_cast<float*>(x), y}`, keeps its space as in device code)
    if (clang_getCursorKind(c) == CXCursor_CXXConstCastExpr && is_pointer(clang_getCursorType(c)) &&
        self->host_calls_.insert(begin_offset(c)).second)
      self->map_cast(c);
    if (clang_getCursorKind(c) != CXCursor_CallExpr || self->in_main_file(callee) ||
        (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) || !self->host_calls_.insert(begin_offset(c)).second)
      return CXChildVisit_Recurse;
    const std::string name = spelling(callee);
    if (self->maps_.functions.count(name) || self->maps_.functions.count(name + "f")) self->map_call(c, callee, ctx->second);
    return CXChildVisit_Recurse;
  };
  if (visit(argument, argument, &context) == CXChildVisit_Recurse) clang_visitChildren(argument, visit, &context);
  out_.problems.insert(out_.problems.end(), context.second.record.problems.begin(), context.second.record.problems.end());
}

// A variable of the entry in a kernel argument, at offset `at`: its initializer (a parameter: the
// task's name) with the assignments before `at` applied, converted to its type after each.
std::string Translator::host_value(CXCursor var, unsigned at) {
  return host_value(var, at, clang_getCursorType(var), "", [&]() -> std::string {
    if (auto p = host_.parameters.find(decl_key(var)); p != host_.parameters.end()) return p->second;
    std::vector<CXCursor> kids = children(var);
    if (kids.empty() || !clang_isExpression(clang_getCursorKind(kids.back())))
      throw Error("'" + spelling(var) + "' has no value the kernel argument can be computed from");
    return rw_.render(begin_offset(kids.back()), end_offset(kids.back()));
  });
}

// The value of a variable of the entry (of its field `member`, of type `type`, when member is not
// empty) at offset `at`, from `initial` with the assignments before `at` applied, converted to its
// type after each.
std::string Translator::host_value(CXCursor var, unsigned at, CXType type, const std::string& member,
                                   const std::function<std::string()>& initial) {
  const CXTypeKind kind = clang_getCanonicalType(type).kind;
  const bool assigned = host_.assignments.count(decl_key(var)) > 0;
  std::string cast = assigned && kind >= CXType_Bool && kind <= CXType_LongDouble ? metal_type(type) : "";
  if (cast.rfind("const ", 0) == 0) cast.erase(0, 6);
  auto typed = [cast](const std::string& v) { return cast + "(" + v + ")"; };
  auto render = [this](CXCursor e) { return rw_.render(begin_offset(e), end_offset(e)); };
  ValueText text;
  text.initial = [&] { return typed(initial()); };
  text.value = [&](CXCursor v, int) { return typed(render(v)); };
  text.operand = render;
  text.binary = [&](const std::string& op, const std::string& a, const std::string& b) { return typed(a + " " + op + " " + b); };
  text.line_break = "\n";
  return value_at(var, at, -1, host_, text, member);
}

// A field of a struct local of the entry read in its expressions (`p.cols` in `p.tiles = p.cols / 32`,
// in a kernel argument) is written as its value there. Returns false for another member reference.
bool Translator::struct_field_edit(CXCursor member) {
  const std::vector<CXCursor> kids = children(member);
  const CXCursor base = kids.empty() ? clang_getNullCursor() : strip_implicit(kids[0]);
  // (a field of a struct a launcher is given or called on, named through its parameter, alone or through `this`: the
  // call's, when rendered)
  const bool own = clang_Cursor_isNull(base) || clang_getCursorKind(base) == CXCursor_CXXThisExpr ||
                   host_.objects.count(decl_key(clang_getCursorReferenced(base)));
  if (own && clang_getCursorKind(clang_getCursorReferenced(member)) != CXCursor_FieldDecl) return false;
  const std::string object_key = clang_Cursor_isNull(base) || clang_getCursorKind(base) == CXCursor_CXXThisExpr ? "this" : decl_key(clang_getCursorReferenced(base));
  const CXCursor var = struct_local(base, begin_offset(member), host_).var;
  if (clang_getCursorKind(var) != CXCursor_VarDecl || !in_main_file(var) ||
      clang_getCursorSemanticParent(var).kind == CXCursor_TranslationUnit ||
      clang_getCanonicalType(clang_getCursorType(var)).kind != CXType_Record || from_prelude(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(var)))))
    return false;
  const std::string field = spelling(member);
  const CXType type = clang_getCursorType(member);
  rw_.replace(begin_offset(member), end_offset(member), [this, own, object_key, base_var = var, field, type, member_at = begin_offset(member),
                                                         written = text(begin_offset(member), end_offset(member))] {
    const auto given = own ? host_.objects.find(object_key) : host_.objects.end();
    if (own && given == host_.objects.end()) return written;  // (the struct's own text, in the header)
    const CXCursor var = own ? given->second.var : base_var;
    const unsigned at = own ? given->second.at : member_at;
    return host_value(var, at, type, field, [&]() -> std::string {
      const CXCursor element = initial_field(var, field);
      if (!clang_Cursor_isNull(element)) return rw_.render(begin_offset(element), end_offset(element));
      // A struct a pure helper returns: the helper's field, as the header defines the helper.
      const CXCursor init = strip_casts(clang_Cursor_getVarDeclInitializer(var));
      if (clang_getCursorKind(init) == CXCursor_CallExpr) {
        std::string why;
        const CXCursor helper = pure_helper(init, &why);
        if (!clang_Cursor_isNull(helper) && !asks_device(helper)) return "(" + rw_.render(begin_offset(init), end_offset(init)) + ")." + field;
      }
      throw Error("'" + spelling(var) + "." + field + "' has no value where it is read");
    });
  });
  return true;
}

// The task tensor or scratch buffer a kernel argument points into (`y`, `partial + row * n`), or "".
std::string Translator::buffer_of(CXCursor argument) {
  std::pair<Translator*, std::string> found(this, "");
  clang_visitChildren(
      argument,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* f = static_cast<std::pair<Translator*, std::string>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        f->second = f->first->buffer_named(decl_key(clang_getCursorReferenced(c)));
        return f->second.empty() ? CXChildVisit_Recurse : CXChildVisit_Break;
      },
      &found);
  if (found.second.empty() && clang_getCursorKind(argument) == CXCursor_DeclRefExpr)
    return buffer_named(decl_key(clang_getCursorReferenced(argument)));
  return found.second;
}

bool Translator::task_input(const std::string& buffer) const {
  return std::any_of(task_.inputs.begin(), task_.inputs.end(), [&](const tasks::TensorSpec& t) { return t.name == buffer; });
}

std::string Translator::buffer_named(const std::string& key) const {
  if (const Scratch* b = scratch_of(key)) return b->name;
  if (auto p = host_.parameters.find(key); p != host_.parameters.end() && task_.find_tensor(p->second)) return p->second;
  return "";
}

// A pure host function of the file called by the entry (`int ceil_div(int, int)`) may reach a
// kernel argument: the header defines it as the __device__ functions are.
void Translator::add_host_helper(CXCursor call) {
  std::string why;
  CXCursor definition = pure_helper(call, &why);
  // (a static method stays in its struct and a lambda's call operator in the entry, which the header does not write;
  // a helper asking the device is inlined in launch sizes only: Metal has no such query)
  if (clang_Cursor_isNull(definition) || functions_.count(decl_key(definition)) || clang_CXXMethod_isStatic(definition) ||
      clang_getCursorKind(definition) == CXCursor_CXXMethod || is_lambda_operator(definition) || asks_device(definition))
    return;
  functions_[decl_key(definition)] = Function{definition};
  clang_visitChildren(
      definition,
      [](CXCursor c, CXCursor, CXClientData self) {
        if (clang_getCursorKind(c) == CXCursor_CallExpr) static_cast<Translator*>(self)->add_host_helper(c);
        return CXChildVisit_Recurse;
      },
      this);
}

namespace {
// Whether a struct holds only what Metal lays out as CUDA does: MLX dtypes' scalars, arrays of them, CUDA's vector
// types of 1, 2 and 4 components (Metal's 3-component vectors are 16 bytes where CUDA's are 12) and such structs.
bool metal_layout(CXType type) {
  type = clang_getCanonicalType(type);
  if (type.kind == CXType_ConstantArray) return metal_layout(clang_getArrayElementType(type));
  if (type.kind != CXType_Record) {
    std::string t = take(clang_getTypeSpelling(type));
    if (t.rfind("const ", 0) == 0) t.erase(0, 6);
    return kTemplateTypes.count(t) > 0;
  }
  const CXCursor declaration = clang_getTypeDeclaration(type);
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(declaration)) && spelling(declaration).ends_with('3')) return false;
  const std::vector<CXCursor> fields = fields_of(type);
  return !fields.empty() &&
         std::all_of(fields.begin(), fields.end(), [](CXCursor f) { return metal_layout(clang_getCursorType(f)); });
}
}  // namespace

// cudaMalloc(&p, bytes) / cudaMallocAsync(&p, bytes, stream): a scratch buffer of p's element type,
// sized bytes / sizeof(element) (a directive expression over the task's axes and params). A buffer of a struct is
// one of unsigned words of the struct's alignment, which each kernel using it views as the struct.
void Translator::add_scratch(CXCursor malloc_call) {
  std::vector<CXCursor> kids = children(malloc_call);
  CXCursor var = clang_getNullCursor();
  if (kids.size() >= 3) {
    CXCursor target = strip_implicit(kids[1]);
    while (!clang_Cursor_isNull(target) && clang_getCursorKind(target) != CXCursor_DeclRefExpr) {
      std::vector<CXCursor> inner = children(target);
      target = inner.empty() ? clang_getNullCursor() : strip_implicit(inner.back());
    }
    if (!clang_Cursor_isNull(target)) var = clang_getCursorReferenced(target);
  }
  if (clang_Cursor_isNull(var) || clang_getCursorKind(var) != CXCursor_VarDecl)
    return problem(out_.problems, malloc_call, spelling(malloc_call), "expected the address of a local pointer variable");
  CXType element = pointee_type(clang_getCursorType(var));
  const std::string t = take(clang_getTypeSpelling(clang_getCanonicalType(element)));
  const std::string name = spelling(var);
  Scratch buffer{decl_key(var), name, "", "", ""};
  std::string dtype;
  long long element_bytes = clang_Type_getSizeOf(element);
  if (auto scalar = kTemplateTypes.find(t); scalar != kTemplateTypes.end()) {
    dtype = scalar->second;
  } else if (clang_getCanonicalType(element).kind == CXType_Record && metal_layout(element)) {
    static const std::map<long long, std::string> kWords = {{1, "uint8"}, {2, "uint16"}, {4, "uint32"}, {8, "uint64"}};
    element_bytes = std::min(clang_Type_getAlignOf(element), 8LL);
    dtype = kWords.at(element_bytes);
    buffer.record = metal_type(element);
    buffer.view = name + "_view";
  } else {
    return problem(out_.problems, malloc_call, spelling(malloc_call),
                   "a scratch buffer of '" + t + "' (neither an MLX dtype nor a struct of them laid out as in Metal)");
  }
  try {
    buffer.dtype = dtype;
    buffer.elements = fmt::format("({}) / {}", directive_expression(kids[2], host_), element_bytes);
    buffer.directive = fmt::format("// scratch: {} = {}[{}]", name, dtype, buffer.elements);
    scratch_.push_back(buffer);
  } catch (const Error& e) {
    problem(out_.problems, malloc_call, "scratch size", e.what());
  }
}

// A local pointer into a scratch buffer of scalars (`float* maxes = ws; float* sums = ws + rows;`, `&ws[rows]`: a
// workspace split into parts) that the entry never reassigns: a scratch buffer of its own, from its offset to the
// allocation's end. MLX's kernels write fresh arrays, so parts that different launches write cannot stay one buffer;
// the parts are taken as disjoint, as a workspace's views are.
void Translator::add_scratch_part(CXCursor var) {
  const CXCursor init = clang_Cursor_getVarDeclInitializer(var);
  if (clang_Cursor_isNull(init) || !is_pointer(clang_getCursorType(var)) || host_.assignments.count(decl_key(var))) return;
  CXCursor base = strip_casts(init), offset = clang_getNullCursor();
  if (clang_getCursorKind(base) == CXCursor_UnaryOperator && tokens_of(unit_, base).front() == "&")
    if (const std::vector<CXCursor> kids = children(base); kids.size() == 1 && clang_getCursorKind(strip_implicit(kids[0])) == CXCursor_ArraySubscriptExpr)
      base = strip_implicit(kids[0]);
  if (const std::vector<CXCursor> kids = children(base);
      kids.size() == 2 && ((clang_getCursorKind(base) == CXCursor_BinaryOperator && operator_of(unit_, base) == "+") ||
                           clang_getCursorKind(base) == CXCursor_ArraySubscriptExpr)) {
    base = strip_casts(kids[0]);
    offset = kids[1];
  }
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr) return;
  const Scratch* whole = scratch_of(decl_key(clang_getCursorReferenced(base)));
  if (!whole || !whole->record.empty() || !whole->part_of.empty() ||
      element_type(clang_getCursorType(var)) != element_type(clang_getCursorType(clang_getCursorReferenced(base))))
    return;
  Scratch part{decl_key(var), spelling(var), "", "", "", whole->dtype, whole->elements, whole->name,
               clang_isConstQualifiedType(pointee_type(clang_getCursorType(var))) != 0};
  try {
    if (!clang_Cursor_isNull(offset)) part.elements += " - (" + directive_expression(offset, host_) + ")";
  } catch (const Error& e) {
    return problem(out_.problems, var, "scratch part '" + part.name + "'", e.what());
  }
  part.directive = fmt::format("// scratch: {} = {}[{}]", part.name, part.dtype, part.elements);
  scratch_.push_back(part);
}

// The buffer a cudaMemset fills and the value each element then holds: a task output or scratch buffer zeroed, or an
// integer task output filled with one byte repeated (0xFF: -1); {"", ""} for anything else.
std::pair<std::string, std::string> Translator::memset_fill(CXCursor memset_call) {
  std::vector<CXCursor> kids = children(memset_call);
  if (kids.size() < 3) return {};
  const std::optional<long long> byte = integer_constant(kids[2]);
  if (!byte) return {};
  CXCursor target = strip_implicit(kids[1]);
  while (clang_getCursorKind(target) == CXCursor_CStyleCastExpr || clang_getCursorKind(target) == CXCursor_ParenExpr) {
    std::vector<CXCursor> inner = children(target);
    if (inner.empty()) break;
    target = strip_implicit(inner.back());
  }
  if (clang_getCursorKind(target) != CXCursor_DeclRefExpr) return {};
  const std::string key = decl_key(clang_getCursorReferenced(target));
  const unsigned long long b = static_cast<unsigned long long>(*byte) & 0xFFu;
  if (const Scratch* s = scratch_of(key)) return b == 0 ? std::make_pair(s->name, std::string("0")) : std::make_pair(std::string(), std::string());
  auto name = host_.parameters.find(key);
  if (name == host_.parameters.end()) return {};
  const auto output = std::find_if(task_.outputs.begin(), task_.outputs.end(), [&](const TensorSpec& t) { return t.name == name->second; });
  if (output == task_.outputs.end()) return {};
  if (b == 0) return {name->second, "0"};
  long long value = 0;
  switch (output->dtype) {
    case DType::i32: value = int32_t(uint32_t(b * 0x01010101u)); break;
    case DType::i64: value = int64_t(b * 0x0101010101010101ull); break;
    case DType::u8: value = (long long)b; break;
    default: return {};
  }
  if (!init_value_holds(value)) return {};  // (0x7F7F7F7F)
  return {name->second, std::to_string(value)};
}

}  // namespace ksearch::translate::detail
