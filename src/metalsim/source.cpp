// Kernel source generation: MLX's exact Metal source, and the host C++
// translation unit built from the same spec.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include <optional>
#include <sstream>
#include <stdexcept>

#include "metalsim/metalsim.hpp"
#include "metalsim/source_internal.hpp"

namespace ksearch::metalsim {

namespace {

struct DtypeInfo {
  Dtype d;
  const char* name;
  const char* metal;
  std::size_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {Dtype::float32, "float32", "float", 4},     {Dtype::float16, "float16", "float16_t", 2},
    {Dtype::bfloat16, "bfloat16", "bfloat16_t", 2}, {Dtype::int32, "int32", "int32_t", 4},
    {Dtype::uint32, "uint32", "uint32_t", 4},    {Dtype::int64, "int64", "int64_t", 8},
    {Dtype::uint64, "uint64", "uint64_t", 8},    {Dtype::int16, "int16", "int16_t", 2},
    {Dtype::uint16, "uint16", "uint16_t", 2},    {Dtype::int8, "int8", "int8_t", 1},
    {Dtype::uint8, "uint8", "uint8_t", 1},       {Dtype::bool_, "bool", "bool", 1},
};
const DtypeInfo& info(Dtype d) { return kDtypes[static_cast<int>(d)]; }

// MLX passes arrays of fewer than 8 elements in the constant address space.
constexpr int64_t kMaxConstantArraySize = 8;
// A Metal kernel's buffer argument table: [[buffer(0)]] to [[buffer(30)]].
constexpr int kBufferSlots = 31;

// Attribute name and type, in MLX's order.
constexpr std::pair<const char*, const char*> kAttributes[] = {
    {"dispatch_quadgroups_per_threadgroup", "uint"},
    {"dispatch_simdgroups_per_threadgroup", "uint"},
    {"dispatch_threads_per_threadgroup", "uint3"},
    {"grid_origin", "uint3"},
    {"grid_size", "uint3"},
    {"quadgroup_index_in_threadgroup", "uint"},
    {"quadgroups_per_threadgroup", "uint"},
    {"simdgroup_index_in_threadgroup", "uint"},
    {"simdgroups_per_threadgroup", "uint"},
    {"thread_execution_width", "uint"},
    {"thread_index_in_quadgroup", "uint"},
    {"thread_index_in_simdgroup", "uint"},
    {"thread_index_in_threadgroup", "uint"},
    {"thread_position_in_grid", "uint3"},
    {"thread_position_in_threadgroup", "uint3"},
    {"threadgroup_position_in_grid", "uint3"},
    {"threadgroups_per_grid", "uint3"},
    {"threads_per_grid", "uint3"},
    {"threads_per_simdgroup", "uint"},
    {"threads_per_threadgroup", "uint3"},
};

int64_t numel(const TensorSpec& t) {
  int64_t n = 1;
  for (auto s : t.shape) n *= s;
  return n;
}


bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::string template_def(const KernelSpec& spec) {
  std::string def = "<";
  for (std::size_t i = 0; i < spec.template_args.size(); ++i) {
    const auto& a = spec.template_args[i];
    if (i > 0) def += ", ";
    switch (a.kind) {
      case TemplateArg::Kind::Int: def += std::to_string(a.int_value); break;
      case TemplateArg::Kind::Bool: def += a.bool_value ? "1" : "0"; break;
      case TemplateArg::Kind::Type: def += info(a.type_value).metal; break;
    }
  }
  return def + ">";
}

// The signature text. Host mode drops Metal attributes and address spaces so
// that the parameter list is plain C++; the punctuation logic (including MLX's
// quirk of closing the list after the first output when inputs carry shape
// parameters and there are no attributes) is kept identical.
std::string write_signature(const KernelSpec& spec, const std::string& name, bool host) {
  std::string out;
  if (!spec.template_args.empty()) {
    out += "template <";
    for (std::size_t i = 0; i < spec.template_args.size(); ++i) {
      const auto& a = spec.template_args[i];
      if (i > 0) out += ", ";
      out += a.kind == TemplateArg::Kind::Int ? "int" : a.kind == TemplateArg::Kind::Bool ? "bool" : "typename";
      out += " " + a.name;
    }
    out += ">\n";
  }
  out += host ? "static void " : "[[kernel]] void ";
  out += name + "(\n";
  auto attr = [&](const std::string& a) { return host ? std::string() : " [[" + a + "]]"; };
  int index = 0;
  for (const auto& in : spec.inputs) {
    std::string location = in_constant_space(in) ? "constant" : "device";
    std::string ref = in.shape.empty() ? "&" : "*";
    out += "  const " + (host ? std::string() : location + " ") + info(in.dtype).metal + ref + " " + in.name +
           attr("buffer(" + std::to_string(index) + ")") + ",\n";
    ++index;
    if (!in.shape.empty()) {
      const std::string c = host ? "  const " : "  const constant ";
      if (contains(spec.source, in.name + "_shape")) {
        out += c + "int* " + in.name + "_shape" + attr("buffer(" + std::to_string(index++) + ")") + ",\n";
      }
      if (contains(spec.source, in.name + "_strides")) {
        out += c + "int64_t* " + in.name + "_strides" + attr("buffer(" + std::to_string(index++) + ")") + ",\n";
      }
      if (contains(spec.source, in.name + "_ndim")) {
        out += c + "int& " + in.name + "_ndim" + attr("buffer(" + std::to_string(index++) + ")") + ",\n";
      }
    }
  }
  std::vector<std::string> attributes;
  for (const auto& [a, type] : kAttributes) {
    if (contains(spec.source, a)) attributes.push_back(std::string("  ") + type + " " + a + attr(a));
  }
  const int last = static_cast<int>(spec.inputs.size() + spec.outputs.size()) - 1;
  for (const auto& o : spec.outputs) {
    std::string t = info(o.dtype).metal;
    if (spec.atomic_outputs) t = "atomic<" + t + ">";
    out += (host ? "  " : "  device ") + t + "* " + o.name + attr("buffer(" + std::to_string(index) + ")");
    out += (index < last || !attributes.empty()) ? ",\n" : ") {\n";
    ++index;
  }
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    out += attributes[i];
    out += i + 1 < attributes.size() ? ",\n" : ") {\n";
  }
  return out;
}

// The parameters write_signature declares, with their address spaces.
std::vector<KernelParameter> kernel_parameters(const KernelSpec& spec) {
  std::vector<KernelParameter> params;
  for (const auto& in : spec.inputs) {
    const AddressSpace space = in_constant_space(in) ? AddressSpace::constant : AddressSpace::device;
    params.push_back({in.name, !in.shape.empty(), space});
    params.push_back({in.name + "_shape", true, AddressSpace::constant});
    params.push_back({in.name + "_strides", true, AddressSpace::constant});
    params.push_back({in.name + "_ndim", false, AddressSpace::constant});
  }
  for (const auto& o : spec.outputs) params.push_back({o.name, true, AddressSpace::device});
  for (const auto& [a, type] : kAttributes) params.push_back({a, false, AddressSpace::thread});
  return params;
}

}  // namespace

bool in_constant_space(const TensorSpec& t) { return numel(t) < kMaxConstantArraySize; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.d;
  if (name == "bool_") return Dtype::bool_;
  return std::nullopt;
}
std::string_view dtype_name(Dtype d) { return info(d).name; }
std::size_t dtype_size(Dtype d) { return info(d).size; }

std::string kernel_name(const KernelSpec& spec) {
  std::string name = "custom_kernel_" + spec.name;
  if (!spec.template_args.empty()) {
    std::string hash;
    std::string def = template_def(spec);
    for (std::size_t i = 0; i < def.size(); ++i) {
      if (def[i] == '<' || def[i] == '>') {
        hash += '_';
      } else if (def[i] == ',' && i + 1 < def.size() && def[i + 1] == ' ') {
        hash += '_';
        ++i;
      } else {
        hash += def[i];
      }
    }
    hash.pop_back();
    name += "_" + hash;
  }
  for (const auto& in : spec.inputs) {
    name += "_";
    name += info(in.dtype).metal;
    if (in.shape.empty()) name += "s";
    else if (in_constant_space(in)) name += "c";
  }
  for (const auto& o : spec.outputs) name += std::string("_") + info(o.dtype).metal;
  return name;
}

std::string generate_source(const KernelSpec& spec) {
  const std::string name = kernel_name(spec);
  std::string src = spec.header + write_signature(spec, name, false) + spec.source + "\n}\n";
  if (!spec.template_args.empty()) {
    const std::string def = name + template_def(spec);
    src += "\ntemplate [[host_name(\"" + name + "\")]] [[kernel]] decltype(" + def + ") " + def + ";\n";
  }
  return src;
}

namespace {

// Metal's compiler refuses a signature with more buffers than its argument table holds, which MLX's can need: each
// input and output takes a slot, and so do the `_shape`, `_strides` and `_ndim` of an input that the source names.
// The error names the first parameter past the table, at its line of the signature as MLX writes it.
std::optional<CompileMessage> too_many_buffers(const KernelSpec& spec) {
  const std::string signature = write_signature(spec, kernel_name(spec), false);
  const std::string past = " [[buffer(" + std::to_string(kBufferSlots) + ")]]";
  const std::size_t at = signature.find(past);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t name_start = signature.rfind(' ', at - 1) + 1;
  std::size_t slots = 0;
  for (std::size_t p = signature.find("[[buffer("); p != std::string::npos; p = signature.find("[[buffer(", p + 1)) ++slots;
  const std::string parameter = signature.substr(name_start, at - name_start);
  const int line = static_cast<int>(std::count(signature.begin(), signature.begin() + at, '\n')) + 1;
  return CompileMessage{
      "signature", line, 3, "error",
      "'buffer' attribute parameter is out of bounds: must be between 0 and " + std::to_string(kBufferSlots - 1) +
          " ('" + parameter + "' would be [[buffer(" + std::to_string(kBufferSlots) + ")]]): the kernel needs " +
          std::to_string(slots) + " buffers and Metal gives a kernel " + std::to_string(kBufferSlots) +
          "; MLX passes each input and output in its own buffer, and each `<input>_shape`, `_strides` and `_ndim` "
          "the source names in another: pass fewer arrays (stack inputs of one shape into one array)"};
}

// MLX declares each input and output as a kernel parameter of its name, which Metal's compiler refuses where the name
// is one of its keywords (the host compiler knows C++'s own, not these; without the check `kernel` would compile and
// `thread` be dropped by the rewrite). The error is at the parameter's line of the signature.
std::optional<CompileMessage> keyword_parameter(const KernelSpec& spec) {
  static const std::set<std::string> keywords = {"kernel", "vertex", "fragment", "device", "constant", "thread",
                                                 "threadgroup", "threadgroup_imageblock", "ray_data", "object_data",
                                                 "half", "bfloat"};
  const std::string signature = write_signature(spec, kernel_name(spec), false);
  std::vector<std::pair<std::string, const char*>> names;
  for (const auto& in : spec.inputs) names.emplace_back(in.name, "input");
  for (const auto& out : spec.outputs) names.emplace_back(out.name, "output");
  for (const auto& [name, role] : names) {
    if (!keywords.count(name)) continue;
    const std::size_t at = signature.find(" " + name + " [[buffer(");
    const int line = static_cast<int>(std::count(signature.begin(), signature.begin() + at, '\n')) + 1;
    return CompileMessage{"signature", line, 3, "error",
                          "'" + name + "' is a keyword in Metal: MLX declares " + role + " '" + name +
                              "' as a kernel parameter of that name, which does not compile; rename the " + role};
  }
  return std::nullopt;
}

}  // namespace

HostSource build_host_source(const KernelSpec& spec) {
  HostSource hs;
  const std::string name = kernel_name(spec);
  if (auto message = keyword_parameter(spec)) {
    hs.errors.push_back(*message);
    return hs;
  }
  if (auto message = too_many_buffers(spec)) {
    hs.errors.push_back(*message);
    return hs;
  }
  RewriteResult header = rewrite_metal(spec.header, "header", 1);
  RewriteResult body = rewrite_metal(spec.source, "body", 1000, &header);
  hs.errors = header.errors;
  hs.errors.insert(hs.errors.end(), body.errors.begin(), body.errors.end());
  for (const auto& [file, text] : {std::pair{"header", &spec.header}, std::pair{"body", &spec.source}})
    for (const CompileMessage& m : static_storage_outside_constant(*text, file)) hs.errors.push_back(m);
  const auto conversions = check_address_spaces(spec.header, spec.source, kernel_parameters(spec));
  hs.errors.insert(hs.errors.end(), conversions.begin(), conversions.end());
  hs.uses_sync = header.uses_sync || body.uses_sync;

  std::ostringstream o;
  o << "#line 1 \"metalsim-header\"\n" << header.text << "\n";
  o << "#line 1 \"metalsim-signature\"\n" << write_signature(spec, name, true);
  o << "#line 1 \"metalsim-body\"\n" << body.text << "\n";
  o << "#line 1 \"metalsim-generated\"\n}\n\n";

  // Entry point: unpack the buffer table and thread attributes, call the kernel.
  o << "extern \"C\" void metalsim_entry(void* const* b, const ms_thread_args* t) {\n  " << name;
  if (!spec.template_args.empty()) o << template_def(spec);
  o << "(\n";
  std::vector<std::string> args;
  int index = 0;
  for (const auto& in : spec.inputs) {
    const std::string t = info(in.dtype).metal;
    if (in.shape.empty()) args.push_back("*(const " + t + "*)b[" + std::to_string(index++) + "]");
    else args.push_back("(const " + t + "*)b[" + std::to_string(index++) + "]");
    if (!in.shape.empty()) {
      if (contains(spec.source, in.name + "_shape")) args.push_back("(const int*)b[" + std::to_string(index++) + "]");
      if (contains(spec.source, in.name + "_strides"))
        args.push_back("(const int64_t*)b[" + std::to_string(index++) + "]");
      if (contains(spec.source, in.name + "_ndim")) args.push_back("*(const int*)b[" + std::to_string(index++) + "]");
    }
  }
  for (const auto& out : spec.outputs) {
    std::string t = info(out.dtype).metal;
    if (spec.atomic_outputs) t = "atomic<" + t + ">";
    args.push_back("(" + t + "*)b[" + std::to_string(index++) + "]");
  }
  hs.num_buffers = index;
  auto u3 = [](const char* f) { return std::string("__ms_make<uint3>(t->") + f + "[0], t->" + f + "[1], t->" + f + "[2])"; };
  for (const auto& [a, type] : kAttributes) {
    if (!contains(spec.source, a)) continue;
    std::string v = a;
    if (v == "dispatch_quadgroups_per_threadgroup")
      v = "(t->dispatch_threads_per_threadgroup[0] * t->dispatch_threads_per_threadgroup[1] * "
          "t->dispatch_threads_per_threadgroup[2] + 3) / 4";
    else if (v == "dispatch_simdgroups_per_threadgroup") v = "t->dispatch_simdgroups_per_threadgroup";
    else if (v == "grid_origin") v = "__ms_make<uint3>(0u)";
    else if (v == "grid_size") v = u3("threads_per_grid");
    else if (v == "quadgroup_index_in_threadgroup") v = "t->thread_index_in_threadgroup / 4";
    else if (v == "quadgroups_per_threadgroup")
      v = "(t->threads_per_threadgroup[0] * t->threads_per_threadgroup[1] * t->threads_per_threadgroup[2] + 3) / 4";
    else if (v == "thread_execution_width" || v == "threads_per_simdgroup") v = "32u";
    else if (v == "thread_index_in_quadgroup") v = "t->thread_index_in_threadgroup % 4";
    else if (std::string(type) == "uint3") v = u3(a);
    else v = std::string("t->") + a;
    args.push_back(v);
  }
  for (std::size_t i = 0; i < args.size(); ++i) o << "    " << args[i] << (i + 1 < args.size() ? ",\n" : ");\n");
  o << "}\n";
  o << "extern \"C\" const ms_kernel_info metalsim_info = {METALSIM_ABI_VERSION, " << hs.num_buffers << "u, "
    << (hs.uses_sync ? 1 : 0) << "};\n";
  o << "extern \"C\" { const ms_runtime* metalsim_rt; int metalsim_checking; }\n";
  // The kernel's threadgroup variables (the shim's __ms_tg_declaration), for the runtime's check of their total.
  o << "[[gnu::used, gnu::section(\"metalsim_tg\")]] static constexpr ms_tg_decl __ms_tg_none{};\n"
       "extern \"C\" __attribute__((visibility(\"hidden\"))) const ms_tg_decl __start_metalsim_tg[], __stop_metalsim_tg[];\n"
       "extern \"C\" MS_NOSAN_CALL const ms_tg_decl* metalsim_tg_decls(uint32_t* count) {\n"
       "  *count = uint32_t(__stop_metalsim_tg - __start_metalsim_tg);\n"
       "  return __start_metalsim_tg; }\n";
  // ThreadSanitizer instrumentation hooks: every load/store of the kernel calls
  // these; metalsim uses them for bounds, race and initialization checks. Never inlined: their return address is
  // the access's place in the kernel's code (the line a finding names).
  // The aligned hooks are called where the compiler assumed the address a multiple of N; a cast pointer can break it.
  o << "#define MS_ALIGNED(p, N, kind) ((kind) | (((unsigned long)(p) & (N - 1)) ? METALSIM_ACCESS_MISALIGNED : 0))\n";
  o << "#define MS_HOOK(N) \\\n"
       "  extern \"C\" MS_NOSAN_CALL void __tsan_read##N(void* p) { if (metalsim_checking) metalsim_rt->access(p, N, MS_ALIGNED(p, N, 0), __builtin_return_address(0)); } \\\n"
       "  extern \"C\" MS_NOSAN_CALL void __tsan_write##N(void* p) { if (metalsim_checking) metalsim_rt->access(p, N, MS_ALIGNED(p, N, 1), __builtin_return_address(0)); } \\\n"
       "  extern \"C\" MS_NOSAN_CALL void __tsan_unaligned_read##N(void* p) { if (metalsim_checking) metalsim_rt->access(p, N, 0, __builtin_return_address(0)); } \\\n"
       "  extern \"C\" MS_NOSAN_CALL void __tsan_unaligned_write##N(void* p) { if (metalsim_checking) metalsim_rt->access(p, N, 1, __builtin_return_address(0)); }\n"
       "MS_HOOK(1) MS_HOOK(2) MS_HOOK(4) MS_HOOK(8) MS_HOOK(16)\n"
       "extern \"C\" MS_NOSAN_CALL void __tsan_read_range(void* p, unsigned long n) { if (metalsim_checking) metalsim_rt->access(p, (uint32_t)n, 0, __builtin_return_address(0)); }\n"
       "extern \"C\" MS_NOSAN_CALL void __tsan_write_range(void* p, unsigned long n) { if (metalsim_checking) metalsim_rt->access(p, (uint32_t)n, 1, __builtin_return_address(0)); }\n"
       // -fsanitize=array-bounds: an index outside an array whose size the compiler knows (a thread's private array,
       // a struct's member array, an inner dimension) calls this before the access. TSan's hooks never see a thread's
       // own stack, where such an index reads or overwrites the kernel's other variables and the emulator's frames.
       "struct __ms_ubsan_type { unsigned short kind, info; char name[1]; };\n"
       "struct __ms_ubsan_out_of_bounds { const char* file; unsigned line, column; const __ms_ubsan_type* array;\n"
       "                                  const __ms_ubsan_type* index; };\n"
       "extern \"C\" MS_NOSAN_CALL void __ubsan_handle_out_of_bounds(const __ms_ubsan_out_of_bounds* d, unsigned long raw) {\n"
       "  const unsigned bits = 1u << (d->index->info >> 1), shift = bits < 64 ? 64 - bits : 0;\n"
       "  const int is_signed = d->index->info & 1;\n"
       "  const long long index = is_signed ? (long long)(raw << shift) >> shift : (long long)raw;\n"
       "  if (metalsim_checking) metalsim_rt->index_out_of_bounds(d->array->name, index, !is_signed, __builtin_return_address(0)); }\n"
       "extern \"C\" MS_NOSAN void __tsan_func_entry(void*) {}\n"
       "extern \"C\" MS_NOSAN void __tsan_func_exit() {}\n"
       "extern \"C\" MS_NOSAN void __tsan_init() {}\n"
       "extern \"C\" MS_NOSAN void __tsan_vptr_update(void**, void*) {}\n"
       "extern \"C\" MS_NOSAN void __tsan_vptr_read(void**) {}\n"
       // Atomics that reach the instrumentation anyway are performed here.
       "#define MS_ARMW(OP, B) extern \"C\" MS_NOSAN int __tsan_atomic32_##OP(volatile int* a, int v, int) { \\\n"
       "  return B(a, v, __ATOMIC_RELAXED); }\n"
       "MS_ARMW(exchange, __atomic_exchange_n) MS_ARMW(fetch_add, __atomic_fetch_add) MS_ARMW(fetch_sub, __atomic_fetch_sub)\n"
       "MS_ARMW(fetch_and, __atomic_fetch_and) MS_ARMW(fetch_or, __atomic_fetch_or) MS_ARMW(fetch_xor, __atomic_fetch_xor)\n"
       "MS_ARMW(fetch_nand, __atomic_fetch_nand)\n"
       "extern \"C\" MS_NOSAN int __tsan_atomic32_load(const volatile int* a, int) { return __atomic_load_n(a, __ATOMIC_RELAXED); }\n"
       "extern \"C\" MS_NOSAN void __tsan_atomic32_store(volatile int* a, int v, int) { __atomic_store_n(a, v, __ATOMIC_RELAXED); }\n"
       "extern \"C\" MS_NOSAN int __tsan_atomic32_compare_exchange_strong(volatile int* a, int* c, int v, int, int) {\n"
       "  return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); }\n"
       "extern \"C\" MS_NOSAN int __tsan_atomic32_compare_exchange_weak(volatile int* a, int* c, int v, int, int) {\n"
       "  return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED); }\n"
       "extern \"C\" MS_NOSAN int __tsan_atomic32_compare_exchange_val(volatile int* a, int c, int v, int, int) {\n"
       "  __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return c; }\n"
       "extern \"C\" MS_NOSAN void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n"
       "extern \"C\" MS_NOSAN void __tsan_atomic_signal_fence(int) {}\n"
       // Copies of aggregates and arrays (a struct assigned from a buffer, a zeroed local array) reach the
       // instrumentation as memcpy/memmove/memset intrinsics, which LLVM 14's TSan turns into calls of the libc
       // functions for its runtime to intercept: with no runtime, they would read and write buffers unchecked.
       // These definitions, hidden so that the kernel's calls bind to them, check both ranges and then copy
       // (no_builtin: the loops must not become calls of themselves).
       "#define MS_COPY_CHECK(p, n, kind) \\\n"
       "  if (metalsim_checking && n) metalsim_rt->access(p, n > 0xffffffffUL ? 0xffffffffu : (uint32_t)n, kind, \\\n"
       "                                                  __builtin_return_address(0))\n"
       "#define MS_COPY_FN extern \"C\" MS_NOSAN_CALL __attribute__((visibility(\"hidden\"), no_builtin))\n"
       "MS_COPY_FN void* memmove(void* d, const void* s, unsigned long n) {\n"
       "  MS_COPY_CHECK(s, n, METALSIM_ACCESS_READ | METALSIM_ACCESS_COPY); MS_COPY_CHECK(d, n, METALSIM_ACCESS_WRITE);\n"
       "  unsigned char* to = (unsigned char*)d; const unsigned char* from = (const unsigned char*)s;\n"
       "  if (to < from) for (unsigned long i = 0; i < n; ++i) to[i] = from[i];\n"
       "  else for (unsigned long i = n; i > 0; --i) to[i - 1] = from[i - 1];\n"
       "  return d; }\n"
       "MS_COPY_FN void* memcpy(void* d, const void* s, unsigned long n) {\n"
       "  MS_COPY_CHECK(s, n, METALSIM_ACCESS_READ | METALSIM_ACCESS_COPY); MS_COPY_CHECK(d, n, METALSIM_ACCESS_WRITE);\n"
       "  unsigned char* to = (unsigned char*)d; const unsigned char* from = (const unsigned char*)s;\n"
       "  for (unsigned long i = 0; i < n; ++i) to[i] = from[i];\n"
       "  return d; }\n"
       "MS_COPY_FN void* memset(void* d, int v, unsigned long n) {\n"
       "  MS_COPY_CHECK(d, n, METALSIM_ACCESS_WRITE);\n"
       "  unsigned char* to = (unsigned char*)d;\n"
       "  for (unsigned long i = 0; i < n; ++i) to[i] = (unsigned char)v;\n"
       "  return d; }\n";
  hs.text = o.str();
  return hs;
}

std::size_t memory_elements(const TensorSpec& t) {
  std::size_t elements = 1;
  for (int64_t extent : t.shape) elements *= static_cast<std::size_t>(std::max<int64_t>(extent, 0));
  if (t.strides.empty() || elements == 0) return elements;
  std::size_t span = 1;  // the last element's offset, plus one
  for (std::size_t d = 0; d < t.shape.size(); ++d) span += static_cast<std::size_t>((t.shape[d] - 1) * t.strides[d]);
  return span;
}

// ------------------------------------------------------------------ JSON
std::string spec_to_json(const KernelSpec& s) {
  using nlohmann::json;
  auto tensors = [](const std::vector<TensorSpec>& ts) {
    json a = json::array();
    for (const auto& t : ts) {
      json tensor = {{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}};
      if (!t.strides.empty()) tensor["strides"] = t.strides;
      a.push_back(std::move(tensor));
    }
    return a;
  };
  json targs = json::array();
  for (const auto& t : s.template_args) {
    json v;
    if (t.kind == TemplateArg::Kind::Int) v = t.int_value;
    else if (t.kind == TemplateArg::Kind::Bool) v = t.bool_value;
    else v = {{"dtype", dtype_name(t.type_value)}};
    targs.push_back({{"name", t.name}, {"value", v}});
  }
  json j = {{"name", s.name},
            {"inputs", tensors(s.inputs)},
            {"outputs", tensors(s.outputs)},
            {"source", s.source},
            {"header", s.header},
            {"template", targs},
            {"grid", s.grid},
            {"threadgroup", s.threadgroup},
            {"ensure_row_contiguous", s.ensure_row_contiguous},
            {"atomic_outputs", s.atomic_outputs}};
  // JSON has no inf or nan: those (e.g. -inf to start a max) travel as "inf", "-inf", "nan".
  if (!s.init_value) j["init_value"] = nullptr;
  else if (std::isfinite(*s.init_value)) j["init_value"] = *s.init_value;
  else j["init_value"] = std::isnan(*s.init_value) ? "nan" : (*s.init_value > 0 ? "inf" : "-inf");
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);  // sources that are not UTF-8 too
}

KernelSpec spec_from_json(std::string_view text) {
  using nlohmann::json;
  try {
    json j = json::parse(text);
    KernelSpec s;
    auto dt = [](const json& v) {
      auto d = parse_dtype(v.get<std::string>());
      if (!d) throw std::runtime_error("unknown dtype " + v.get<std::string>());
      return *d;
    };
    auto tensors = [&](const json& a) {
      std::vector<TensorSpec> ts;
      for (const auto& t : a) {
        TensorSpec& tensor = ts.emplace_back(TensorSpec{t.at("name"), dt(t.at("dtype")), t.at("shape").get<std::vector<int64_t>>()});
        tensor.strides = t.value("strides", std::vector<int64_t>{});
        if (!tensor.strides.empty() && tensor.strides.size() != tensor.shape.size())
          throw std::runtime_error("tensor '" + tensor.name + "' has " + std::to_string(tensor.strides.size()) +
                                   " strides for " + std::to_string(tensor.shape.size()) + " dimensions");
        for (int64_t stride : tensor.strides)
          if (stride < 0) throw std::runtime_error("tensor '" + tensor.name + "' has a negative stride");
      }
      return ts;
    };
    s.name = j.at("name");
    s.inputs = tensors(j.at("inputs"));
    s.outputs = tensors(j.at("outputs"));
    s.source = j.at("source");
    s.header = j.value("header", "");
    for (const auto& t : j.value("template", json::array())) {
      const auto& v = t.at("value");
      if (v.is_boolean()) s.template_args.push_back(TemplateArg::boolean(t.at("name"), v.get<bool>()));
      else if (v.is_number_integer()) s.template_args.push_back(TemplateArg::integer(t.at("name"), v.get<int>()));
      else s.template_args.push_back(TemplateArg::type(t.at("name"), dt(v.at("dtype"))));
    }
    s.grid = j.at("grid").get<std::array<int, 3>>();
    s.threadgroup = j.at("threadgroup").get<std::array<int, 3>>();
    s.ensure_row_contiguous = j.value("ensure_row_contiguous", true);
    s.atomic_outputs = j.value("atomic_outputs", false);
    if (j.contains("init_value") && !j["init_value"].is_null()) {
      const json& v = j["init_value"];
      s.init_value = v.is_string() ? std::stof(v.get<std::string>()) : v.get<float>();
    }
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("metalsim: bad kernel spec JSON: ") + e.what());
  }
}

}  // namespace ksearch::metalsim
