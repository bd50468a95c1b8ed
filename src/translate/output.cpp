// The metal candidate (docs/TRANSLATE.md, docs/METAL.md): each launch's directives, the header (the
// file's macros, types, constants, __device__ functions and lambda structs, in their namespaces, with
// the Metal helpers they name), and the kernel's body (bindings, hoisted and dynamic threadgroup
// memory, its statements); one kernel, a dispatch among alternatives, or a multi-kernel candidate.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// An arithmetic operator of the file over CUDA's vector types (helper_math.h's `float4 + float4`,
// `float * float4`, `+=`): Metal's vector types have them built in, element-wise, and overloading
// them is an error. (Comparisons are not dropped: Metal's return a vector of bools.)
bool builtin_vector_operator(CXCursor function) {
  static const std::set<std::string> arithmetic = {"operator+", "operator-", "operator*", "operator/",
                                                   "operator+=", "operator-=", "operator*=", "operator/="};
  if (!arithmetic.count(spelling(function))) return false;
  bool vector = false;
  for (CXCursor p : parameters_of(function)) {
    CXType t = clang_getCursorType(p);
    if (is_reference(t)) t = pointee_type(t);
    t = clang_getCanonicalType(t);
    std::string name = take(clang_getTypeSpelling(t));
    if (name.rfind("const ", 0) == 0) name.erase(0, 6);
    static const std::set<std::string> bases = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "float", "double"};
    const bool is_vector = !name.empty() && name.back() >= '1' && name.back() <= '4' && bases.count(name.substr(0, name.size() - 1));
    if (is_vector) vector = true;
    else if (!(t.kind >= CXType_Bool && t.kind <= CXType_LongDouble)) return false;
  }
  return vector;
}

// The named namespaces around a declaration, outermost first (anonymous ones are left out: their
// names are visible around them).
// Whether a struct has a field of the CUDA host API's types (a stream, an event, device properties).
bool holds_host_api_object(CXCursor record) {
  bool holds = false;
  clang_Type_visitFields(
      clang_getCursorType(record),
      [](CXCursor field, CXClientData data) {
        const std::string type = take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(field))));
        for (const char* host : {"CUstream_st", "CUevent_st", "cudaDeviceProp", "CUgraph"})
          if (type.find(host) != std::string::npos) *static_cast<bool*>(data) = true;
        return CXVisit_Continue;
      },
      &holds);
  return holds;
}

std::vector<std::string> namespaces_of(CXCursor c) {
  std::vector<std::string> out;
  for (CXCursor p = clang_getCursorSemanticParent(c); clang_getCursorKind(p) == CXCursor_Namespace; p = clang_getCursorSemanticParent(p))
    if (!clang_Cursor_isAnonymous(p)) out.insert(out.begin(), spelling(p));
  return out;
}

}  // namespace

std::vector<std::string> Translator::directives(const Launch& launch) const {
  const auto& [b, t] = std::tie(launch.blocks, launch.threads);
  std::vector<std::string> out = {fmt::format("// grid: ({}) * ({}), ({}) * ({}), ({}) * ({})", b[0], t[0], b[1], t[1], b[2], t[2]),
                                  fmt::format("// threadgroup: {}, {}, {}", t[0], t[1], t[2])};
  if (!launch.shared_bytes.empty()) out.push_back("// template: KS_DYNAMIC_SHARED_BYTES = max(" + launch.shared_bytes + ", 16)");
  for (const auto& a : launch.templates) out.push_back(fmt::format("// template: {} = {}", a.name, a.value));
  if (!launch.init_value.empty()) out.push_back("// init_value: " + launch.init_value);
  return out;
}

// A declaration in a named namespace stays in it (`ops::Gelu`); the body, outside, names it unqualified too through the
// header's `using namespace`.
std::string Translator::in_namespaces(CXCursor declaration, std::string text) {
  std::vector<std::string> names = namespaces_of(declaration);
  for (std::string& n : names)  // (a namespace named as a Metal keyword, OpenCV's cv::cuda::device: as its uses are)
    if (auto r = keyword_renames_.find(n); r != keyword_renames_.end()) n = r->second;
  if (!names.empty()) namespaces_.insert(fmt::format("{}", fmt::join(names, "::")));
  for (auto n = names.rbegin(); n != names.rend(); ++n) text = "namespace " + *n + " {\n" + text + "}\n";
  return text;
}

std::string Translator::header() {
  std::vector<std::pair<unsigned, std::string>> parts;
  // Each lambda's struct before the declaration holding it (a nested lambda's first: it ends first).
  for (const Lambda& lambda : lambdas_) parts.push_back({begin_offset(lambda.anchor), in_namespaces(lambda.anchor, lambda_struct(lambda))});
  for (const auto& [name, wrapper] : function_objects_)
    parts.push_back({end_offset(wrapper.first), in_namespaces(wrapper.first, wrapper.second)});
  for (const LocalRecord& r : local_records_)
    parts.push_back({begin_offset(r.anchor), in_namespaces(r.anchor, r.head + rw_.render(begin_offset(r.decl), end_offset(r.decl)) + ";\n")});
  std::pair<Translator*, void*> context(this, &parts);
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<Translator*>(static_cast<std::pair<Translator*, void*>*>(data)->first);
        auto* parts = static_cast<std::vector<std::pair<unsigned, std::string>>*>(static_cast<std::pair<Translator*, void*>*>(data)->second);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        auto in_namespaces = [c, self](std::string text) { return self->in_namespaces(c, std::move(text)); };
        const CXCursorKind kind = clang_getCursorKind(c);
        const unsigned b = begin_offset(c), e = end_offset(c);
        switch (kind) {
          case CXCursor_MacroDefinition: {
            if (self->macros_.expanded.count(spelling(c))) break;  // no use is left
            // A function-like macro nothing uses is left out: its body may hold what Metal has not (the inline PTX
            // of a helper macro the kernels do not call).
            if (self->macros_.unused.count(spelling(c))) break;
            const size_t line = self->rw_.text().rfind('\n', b);
            const unsigned from = line == std::string::npos ? 0 : unsigned(line + 1);
            parts->push_back({b, self->rw_.render(from, e) + "\n"});
            break;
          }
          case CXCursor_StructDecl:
          case CXCursor_ClassDecl:
          case CXCursor_UnionDecl:
          case CXCursor_ClassTemplate:
          case CXCursor_ClassTemplatePartialSpecialization:
          case CXCursor_EnumDecl:
          case CXCursor_TypedefDecl:
          case CXCursor_TypeAliasDecl:
          case CXCursor_TypeAliasTemplateDecl:
            if (pointer_typedef(c)) break;  // written out at its uses (expand_pointer_typedefs)
            if (self->accessor_records_.count(decl_key(c))) break;  // its calls became the kernel's array
            // A launcher's struct holding the host API's objects (Caffe2's context with its cudaStream_t): host code,
            // which Metal cannot declare and no device code can use.
            if ((kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl) && holds_host_api_object(c)) {
              self->out_.notes.push_back(fmt::format("struct '{}' (line {}) left out: it holds the host API's objects", spelling(c),
                                                     position(c).line));
              break;
            }
            // a name for a group handle or a libcu++ barrier or pipeline, whose variables are dropped
            if ((kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl) &&
                group_of(clang_getTypedefDeclUnderlyingType(c)).kind != Group::none)
              break;
            // `typedef struct { ... } Params;` defines the struct inside the typedef, whose text carries it.
            while (kind == CXCursor_TypedefDecl && !parts->empty() && parts->back().first > b && parts->back().first < e) parts->pop_back();
            // A declaration without definition too: a primary template that only its specializations define
            // (`template <int N> struct Vec;`), a forward declaration.
            // (Not one of a struct whose definition became a template here.)
            if (clang_isCursorDefinition(c) ||
                (kind != CXCursor_EnumDecl && !self->templated_records_.count(decl_key(c)))) {
              std::string text = self->rw_.render(b, e);
              // Its host-only methods are left out (a launcher `void launch(cudaStream_t) const`): device code cannot
              // call them (except constexpr ones, which stay).
              for (CXCursor method : children(c)) {
                const CXCursorKind member = clang_getCursorKind(method);
                if ((member != CXCursor_CXXMethod && member != CXCursor_FunctionTemplate) || has_child(method, CXCursor_CUDADeviceAttr) ||
                    has_child(method, CXCursor_CUDAGlobalAttr) || self->is_constexpr(method))
                  continue;
                const std::string host_method = self->rw_.render(begin_offset(method), end_offset(method));
                if (const size_t at = text.find(host_method); at != std::string::npos) text.erase(at, host_method.size());
              }
              // its methods, with the address spaces their reference parameters bind
              for (const auto& [key, fn] : self->functions_) {
                if (fn.kernel ||
                    std::all_of(fn.reference_spaces.begin(), fn.reference_spaces.end(), [](const auto& v) { return v.empty(); }) ||
                    !clang_equalCursors(clang_getCursorSemanticParent(fn.cursor), c))
                  continue;
                const std::string method = self->rw_.render(begin_offset(fn.cursor), end_offset(fn.cursor));
                if (const size_t at = text.find(method); at != std::string::npos)
                  text.replace(at, method.size(), self->with_reference_spaces(fn, method));
              }
              if (self->shuffled_records_.count(decl_key(c))) text += ";\n" + self->member_shuffles(c);
              else text += ";\n";
              parts->push_back({b, in_namespaces(text)});
            }
            break;
          case CXCursor_VarDecl: {
            if (has_child(c, CXCursor_CUDASharedAttr)) break;  // declared in the kernel
            const bool constant = has_child(c, CXCursor_CUDAConstantAttr);
            if (!constant && !is_const_object(clang_getCursorType(c))) break;  // host state
            if (self->constant_sources_.count(decl_key(c))) break;  // read from the buffer the host fills it from
            // `constexpr int a = 1, b = 2;` is one declaration per name, all starting at `constexpr`:
            // the last one spans the whole statement.
            if (!parts->empty() && parts->back().first == b) parts->pop_back();
            parts->push_back({b, in_namespaces((constant ? "" : "constant ") + self->rw_.render(b, e) + ";\n")});
            break;
          }
          case CXCursor_FunctionDecl:
          case CXCursor_FunctionTemplate: {
            auto f = self->functions_.find(decl_key(c));
            // A __device__ function template only declared, defined only by its explicit specializations (ATen's
            // `template <typename T> T load(const T*);` then `template <> float load<float>(...)`): its declaration,
            // which they specialize.
            if (f == self->functions_.end() && kind == CXCursor_FunctionTemplate && has_child(c, CXCursor_CUDADeviceAttr) &&
                clang_Cursor_isNull(clang_getCursorDefinition(c))) {
              parts->push_back({b, in_namespaces(self->rw_.render(b, e) + ";\n")});
              break;
            }
            if (f == self->functions_.end() || f->second.kernel) break;
            // A function no launched kernel calls is left out where it holds what does not port (it would not compile).
            if (!f->second.record.problems.empty() && !self->launched_reach_.count(f->first)) {
              self->out_.notes.push_back(fmt::format("__device__ function '{}' (line {}) left out: no launched kernel calls it, "
                                                     "and it holds what does not port ({})",
                                                     spelling(c), position(c).line, f->second.record.problems.front().construct));
              break;
            }
            if (builtin_vector_operator(c)) {
              const std::string note = "operators of the file over vector types (helper_math.h style) dropped: Metal's vector types have them";
              if (std::find(self->out_.notes.begin(), self->out_.notes.end(), note) == self->out_.notes.end()) self->out_.notes.push_back(note);
              break;
            }
            parts->push_back({b, in_namespaces(self->with_reference_spaces(f->second, self->rw_.render(b, e) + "\n"))});
            break;
          }
          case CXCursor_UnexposedDecl:
          case CXCursor_Namespace:
            return CXChildVisit_Recurse;
          default:
            break;
        }
        return CXChildVisit_Continue;
      },
      &context);
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& h : helpers_) out += maps_.helpers.at(h);
  for (const auto& [at, text] : parts) out += text;
  // Each enclosing namespace too: the kernel's code names `detail::f` from inside `kernels`, and the body is outside.
  std::set<std::string> used;
  for (const auto& name : namespaces_)
    for (size_t end = name.find("::"); ; end = name.find("::", end + 2)) {
      used.insert(name.substr(0, end));
      if (end == std::string::npos) break;
    }
  for (const auto& name : used) out += "using namespace " + name + ";\n";
  return out;
}

std::string Translator::kernel_body(const Function& kernel, const std::vector<std::string>& bindings) {
  std::string out;
  for (const auto& b : bindings) out += b + "\n";
  // The kernel's extern __shared__ arrays, and those of the functions it calls, share its launch's dynamic shared
  // memory (KS_DYNAMIC_SHARED_BYTES): the first is that array, the others point into it.
  std::vector<std::pair<std::string, std::string>> dynamic;  // (element type, name)
  for (CXCursor array : kernel.dynamic_shared)
    dynamic.emplace_back(metal_type(clang_getArrayElementType(clang_getCursorType(array))), dynamic_shared_name(array));
  for (const auto& name : kernel.shared) {
    const HoistedShared& h = hoisted_.at(name);
    if (h.dynamic) dynamic.emplace_back(h.resolved_element, h.hoisted);
    else out += threadgroup_declaration(h.resolved_element, h.hoisted, h.resolved_dims) + "\n";
  }
  for (size_t i = 0; i < dynamic.size(); ++i) {
    const auto& [t, name] = dynamic[i];
    if (i == 0)
      out += fmt::format("threadgroup {} {}[(KS_DYNAMIC_SHARED_BYTES + sizeof({}) - 1) / sizeof({})];\n", t, name, t, t);
    else
      out += fmt::format("threadgroup {}* {} = (threadgroup {}*){};\n", t, name, t, dynamic[0].second);
  }
  for (CXCursor k : children(kernel.cursor))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) out += rw_.render(begin_offset(k), end_offset(k)) + "\n";
  return out;
}

// The candidate's text: a dispatch among alternative launches, one kernel, or a multi-kernel candidate (several
// launches, or scratch buffers); none when a launched kernel is not defined in the file.
void Translator::write_candidate() {
  std::string candidate = fmt::format("// Translated from {} by `ksearch port` (docs/TRANSLATE.md): ",
                                      std::filesystem::path(file_).filename().string());
  bool defined = !launches_.empty();
  std::vector<std::string> named;  // each kernel once (alternatives may launch one kernel template twice)
  for (size_t i = 0; i < launches_.size(); ++i) {
    auto kernel = functions_.find(launches_[i].kernel);
    if (kernel == functions_.end()) {
      problem(out_.problems, launches_[i].call, "kernel launch", "the launched kernel is not defined in this file");
      defined = false;
      continue;
    }
    const std::string text = fmt::format("kernel {}, line {}", spelling(kernel->second.cursor), source_line(position(kernel->second.cursor).line));
    if (std::find(named.begin(), named.end(), text) == named.end()) named.push_back(text);
  }
  candidate += fmt::format("{}", fmt::join(named, "; "));
  if (defined && dispatch_) {
    candidate += ".\n" + dispatch_candidate();
    out_.candidate = candidate;
    out_.notes.push_back("the entry chooses among its launches: the candidate's directives choose the same way per workload");
  } else if (defined && launches_.size() == 1 && scratch_.empty()) {
    candidate += ".\n";
    for (const auto& d : directives(launches_[0])) candidate += d + "\n";
    candidate += header();
    candidate += "// --- body ---\n" + kernel_body(functions_.at(launches_[0].kernel), launches_[0].bindings);
    out_.candidate = candidate;
  } else if (defined) {
    // Several launches: a multi-kernel candidate (docs/METAL.md), each kernel with the file's header.
    candidate += ".\n";
    for (const auto& b : scratch_) candidate += b.directive + "\n";
    const std::string shared_header = header();
    for (const auto& launch : launches_) {
      candidate += "// --- kernel: " + launch.section + " ---\n";
      for (const auto& d : directives(launch)) candidate += d + "\n";
      candidate += fmt::format("// outputs: {}\n", fmt::join(launch.outputs, ", "));
      candidate += shared_header;
      candidate += "// --- body ---\n" + kernel_body(functions_.at(launch.kernel), launch.bindings);
    }
    out_.candidate = candidate;
  }
  // A 128-bit integer in code the port keeps (a kernel's, or the launcher's, whose values the kernel computes):
  // libdivide's `((unsigned __int128)1 << 64) / d`, a wide product. The kept use first in the file is reported.
  static const std::regex marked(std::string(R"(\b(__u?int128(?:_t)?))") + kWideIntegerMark + R"((\d+)\b)");
  std::optional<size_t> first;
  for (auto m = std::sregex_iterator(out_.candidate.begin(), out_.candidate.end(), marked); m != std::sregex_iterator(); ++m)
    first = std::min(first.value_or(SIZE_MAX), size_t(std::stoul((*m)[2].str())));
  out_.candidate = std::regex_replace(out_.candidate, marked, "$1");
  // (A type the port spells from libclang's view, as a deduced one, carries no number: the file's first use then.)
  static const std::regex unmarked(R"(\b__u?int128(_t)?\b)");
  if (!first && !wide_integers_.empty() && std::regex_search(out_.candidate, unmarked)) first = 0;
  if (first) {
    const Position& at = wide_integers_.at(*first);
    out_.problems.push_back({at.file, int(at.line), int(at.column), "128-bit integer",
                             "Metal's widest integer is 64-bit (long, ulong): compute in 64 bits, or split the value "
                             "into two ulong halves by hand (mulhi gives a product's high half)"});
  }
}

}  // namespace ksearch::translate::detail
