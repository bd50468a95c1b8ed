// ObjectRules::check: what the compiler and linker really produced, read from the shared object's
// ELF (and, for cuda, from the device ELFs embedded in it), whatever the source looked like.
#include <elf.h>
#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>

#include "backends/elf.hpp"
#include "backends/rules.hpp"
#include "core/error.hpp"
#include "core/process.hpp"

namespace fs = std::filesystem;

namespace ksearch::backends {

namespace {

std::string describe_function(const std::string& name) {
  if (name.starts_with("_GLOBAL__sub_I_")) return "the dynamic initialization of namespace-scope variables";
  return "`" + demangle(name) + "`";
}

void check_imports(const ObjectRules& rules, const ElfFile& elf, std::vector<RuleViolation>& out) {
  for (const auto& symbol : elf.dynamic_symbols()) {
    if (symbol.defined() || symbol.name.empty()) continue;
    const std::string name = demangle(symbol.name);
    const bool allowed = rules.allowed_libraries.count(symbol.library) || rules.allowed_imports.matches(name);
    if (allowed && !rules.forbidden_imports.matches(name)) continue;
    std::string why;
    for (const auto& [names, message] : rules.import_messages)
      if (why.empty() && names.matches(name)) why = ": " + message;
    out.push_back({"object-imports", fmt::format("the library uses `{}`{}, which {} on this target{}", name,
                                                 symbol.library.empty() ? "" : " from " + symbol.library,
                                                 allowed ? "candidates may not use"
                                                         : "is not among the library functions a candidate may use",
                                                 why)});
  }
}

// Code that runs when the library is loaded or unloaded, beyond what the toolchain always emits.
void check_load_time_code(const ObjectRules& rules, const ElfFile& elf, std::vector<RuleViolation>& out) {
  const std::pair<const char*, const std::vector<std::string>*> arrays[] = {{".init_array", &rules.init_functions},
                                                                            {".fini_array", &rules.fini_functions}};
  for (const auto& [section_name, allowed] : arrays) {
    const ElfSection* section = elf.section(section_name);
    if (!section) continue;
    std::multiset<std::string> toolchain(allowed->begin(), allowed->end());
    for (const auto& function : elf.function_pointer_array(*section)) {
      if (auto it = toolchain.find(function); it != toolchain.end()) {
        toolchain.erase(it);
        continue;
      }
      out.push_back({"object-load-time-code",
                     fmt::format("the library runs {} when it is {} ({}): candidates may not run code at load or exit time",
                                 describe_function(function), section_name == std::string(".init_array") ? "loaded" : "unloaded",
                                 section_name)});
    }
  }
  for (const char* name : {".preinit_array", ".ctors", ".dtors"})
    if (elf.section(name)) out.push_back({"object-load-time-code", fmt::format("the library has a {} section (code run at load or exit time)", name)});
  for (const auto& symbol : elf.symbols()) {
    if (!symbol.defined() || symbol.name.empty() || symbol.section >= elf.sections().size()) continue;
    const std::string& section = elf.sections()[symbol.section].name;
    if ((section == ".init" && symbol.name != "_init") || (section == ".fini" && symbol.name != "_fini"))
      out.push_back({"object-load-time-code", fmt::format("`{}` is placed in the {} section, which runs at load or exit time",
                                                          demangle(symbol.name), section)});
  }
  // The dynamic loader calls an indirect function's resolver while it relocates the library.
  bool indirect = false;
  for (const auto& symbol : elf.symbols()) indirect = indirect || (symbol.defined() && symbol.type == STT_GNU_IFUNC);
  for (const auto& r : elf.dynamic_relocations())
    indirect = indirect || (elf.machine() == EM_X86_64 && r.type == R_X86_64_IRELATIVE) ||
               (elf.machine() == EM_AARCH64 && r.type == R_AARCH64_IRELATIVE);
  if (indirect)
    out.push_back({"object-load-time-code", "the library has an indirect function (ifunc, target_clones), whose resolver runs at load "
                                            "time: choose the code path at run time instead (__builtin_cpu_supports, and functions "
                                            "with __attribute__((target(\"avx2,fma\"))))"});
}

void check_thread_local_storage(const ElfFile& elf, std::vector<RuleViolation>& out) {
  bool tls = false;
  for (uint32_t type : elf.segment_types()) tls = tls || type == PT_TLS;
  for (const auto& section : elf.sections()) tls = tls || (section.flags & SHF_TLS);
  if (!tls) return;
  std::string names;
  for (const auto& symbol : elf.symbols())
    if (symbol.type == STT_TLS && symbol.defined()) names += (names.empty() ? "" : ", ") + ("`" + demangle(symbol.name) + "`");
  out.push_back({"object-thread-local", fmt::format("the library has thread-local storage{} (thread_local, __thread, "
                                                    "omp threadprivate): ksearch cannot reset it between calls",
                                                    names.empty() ? "" : ": " + names)});
}

// The mnemonic of one line of `objdump -d --no-show-raw-insn` ("  1139:\tlock cmpxchg %eax,(%rdx)"):
// the words before the operands, prefixes included.
std::vector<std::string> instruction_words(const std::string& line) {
  std::vector<std::string> words;
  const size_t tab = line.find(":\t");
  if (tab == std::string::npos) return words;
  std::istringstream in(line.substr(tab + 2));
  for (std::string word; in >> word;) {
    if (std::string("%$*(<-0123456789").find(word[0]) != std::string::npos || word.find(',') != std::string::npos) break;
    words.push_back(word);
  }
  return words;
}

void check_instructions(const ObjectRules& rules, const fs::path& library, std::vector<RuleViolation>& out) {
  CommandOptions options;
  options.timeout = std::chrono::seconds(60);
  options.max_output_bytes = size_t(1) << 30;
  const CommandResult r = run_command({"objdump", "-d", "--no-show-raw-insn", "-w", library.string()}, options);
  if (!r.ok()) {
    out.push_back({"object-instructions", "the library could not be disassembled: " + tail_lines(r.output, 3)});
    return;
  }
  std::map<std::string, std::string> found;  // instruction -> first function that has it
  std::string function;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.ends_with(">:")) {  // "0000000000001100 <softmax>:"
      const size_t open = line.find('<');
      function = open == std::string::npos ? "" : line.substr(open + 1, line.size() - open - 3);
      continue;
    }
    for (const auto& word : instruction_words(line))
      if (rules.forbidden_instructions.count(word)) found.emplace(word, function);
  }
  for (const auto& [instruction, where] : found)
    out.push_back({"object-instructions", fmt::format("the instruction `{}` (in `{}`) is not allowed on this target: "
                                                      "no system calls and no clock or counter reads",
                                                      instruction, demangle(where))});
}

// nvcc embeds the device code as ELF images in .nv_fatbin. Mutable __device__ variables live in
// their .nv.global (zero-initialized) and .nv.global.init sections and survive from call to call;
// what device code calls outside itself is an undefined symbol: the device runtime's heap (malloc,
// whose blocks also outlive a call), launches from the device, anything beyond printf and assert.
void check_device_code(const ObjectRules& rules, const ElfFile& elf, const fs::path& library, std::vector<RuleViolation>& out) {
  const ElfSection* fatbin = elf.section(".nv_fatbin");
  if (!fatbin) return;
  const auto images = embedded_elf_files(elf.contents(*fatbin), library.string());
  if (images.empty()) {
    out.push_back({"object-device-code", "the library's device code could not be read (no device ELF in .nv_fatbin)"});
    return;
  }
  std::set<std::string> globals, calls;
  for (const auto& image : images)
    for (const auto& symbol : image.symbols()) {
      if (!symbol.defined() && symbol.type != STT_OBJECT && !symbol.name.empty()) calls.insert(symbol.name);
      else if (!rules.device_globals && symbol.defined() && symbol.section < image.sections().size() &&
               symbol.type == STT_OBJECT && image.sections()[symbol.section].name.starts_with(".nv.global"))
        globals.insert(demangle(symbol.name));
    }
  for (const auto& name : globals)
    out.push_back({"object-device-globals", fmt::format("`{}` is a __device__ variable in global memory, which keeps its value from "
                                                        "call to call: use __constant__ tables, registers or shared memory",
                                                        name)});
  for (const auto& name : calls)
    if (!rules.allowed_device_imports.matches(demangle(name)))
      out.push_back({"object-device-imports", fmt::format("the device code calls `{}`, which is not among the device runtime "
                                                          "functions a candidate may use (device heap memory outlives the call; "
                                                          "launch every kernel from the host on `stream`)",
                                                          demangle(name))});
}

}  // namespace

std::vector<RuleViolation> ObjectRules::check(const fs::path& library) const {
  std::vector<RuleViolation> out;
  if (!enabled) return out;
  ElfFile elf;
  try {
    elf = ElfFile::load(library);
  } catch (const Error& e) {
    return {{"object", std::string("the built library could not be read: ") + e.what()}};
  }
  check_imports(*this, elf, out);
  check_load_time_code(*this, elf, out);
  check_thread_local_storage(elf, out);
  if (!forbidden_instructions.empty()) check_instructions(*this, library, out);
  if (checks_device_code) check_device_code(*this, elf, library, out);
  return out;
}

}  // namespace ksearch::backends
