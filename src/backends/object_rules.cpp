// ObjectRules::check: what the compiler and linker really produced, read from the shared object's
// ELF (and, for cuda, from the device ELFs embedded in it), whatever the source looked like.
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "backends/elf.hpp"
#include "backends/rules.hpp"
#include "core/demangle.hpp"
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

// The symbols a line of objdump names: "call 1c20 <__cpu_indicator_init>", "lea 0x24f0(%rip),%rax # 5030
// <__cpu_model>", "je 2bc4 <f.resolver+0x24>": the names, without offset or @plt.
std::vector<std::string> referenced_symbols(const std::string& line) {
  std::vector<std::string> names;
  for (size_t open = line.find('<'); open != std::string::npos; open = line.find('<', open + 1)) {
    const size_t end = line.find_first_of("+@>", open + 1);
    if (end != std::string::npos) names.push_back(line.substr(open + 1, end - open - 1));
  }
  return names;
}

// Whether an instruction's mnemonic words (prefixes included) make it a call or a jump.
bool is_branch(const std::vector<std::string>& words) {
  return std::any_of(words.begin(), words.end(), [](const std::string& w) { return w == "call" || w.starts_with("j"); });
}

struct DisassembledFunction {
  uint64_t address = 0;
  std::string name;
  std::vector<std::string> lines;  // its instructions
};

// `objdump -d` of the library's code, function by function; empty with `error` set if it failed.
struct Disassembly {
  std::vector<DisassembledFunction> functions;
  std::string error;

  explicit Disassembly(const fs::path& library) {
    CommandOptions options;
    options.timeout = std::chrono::seconds(60);
    options.max_output_bytes = size_t(1) << 30;
    const CommandResult r = run_command({"objdump", "-d", "--no-show-raw-insn", "-w", library.string()}, options);
    if (!r.ok()) {
      error = "the library could not be disassembled: " + tail_lines(r.output, 3);
      return;
    }
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.ends_with(">:")) {  // "0000000000001100 <softmax>:"
        const size_t open = line.find('<');
        functions.push_back({std::strtoull(line.c_str(), nullptr, 16),
                             open == std::string::npos ? "" : line.substr(open + 1, line.size() - open - 3), {}});
      } else if (!instruction_words(line).empty()) {
        if (functions.empty()) functions.emplace_back();  // code before any label
        functions.back().lines.push_back(line);
      }
    }
  }
  const DisassembledFunction* at(uint64_t address) const {
    for (const auto& f : functions)
      if (f.address == address) return &f;
    return nullptr;
  }
};

// The function at `address` with the parts the compiler split off it (`NAME.cold`), found by name.
std::vector<const DisassembledFunction*> function_parts(const Disassembly& code, uint64_t address, const std::string& name) {
  std::vector<const DisassembledFunction*> parts;
  if (const auto* main = code.at(address)) parts.push_back(main);
  for (const auto& f : code.functions)
    if (f.name.starts_with(name + ".") && f.address != address) parts.push_back(&f);
  return parts;
}

// The operands of one line of objdump, split at the commas between them, without the comment and without
// AVX-512's `{%k1}` / `{z}` / `{1to16}` decorations.
std::vector<std::string> operands_of(const std::string& line, const std::vector<std::string>& words) {
  const size_t tab = line.find(":\t");
  std::string text = line.substr(tab + 2, line.find('#', tab) - tab - 2);
  for (const auto& w : words) text.erase(0, text.find(w) + w.size());  // the mnemonic and its prefixes
  std::vector<std::string> operands(1);
  int depth = 0;
  for (const char c : text) {
    if (c == '(' || c == '{') ++depth;
    if (c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) operands.emplace_back();
    else if (c != ' ' && !(depth > 0 && operands.back().find('{') != std::string::npos)) operands.back() += c;
  }
  for (auto& operand : operands) operand.erase(std::min(operand.find('{'), operand.size()));
  std::erase(operands, std::string());
  return operands;
}

// Where a dynamic initialization may touch memory: the library's own image (`%rip`-relative) and its own stack
// frame. Its code runs while the library loads, before the runner's second seccomp stage: a write past its frame
// (its return address, the loader's frames: a jump to any code once it returns) or past the library (another
// library's data, a lazily bound GOT slot the runner calls through) would run code of its choice at load time.
class InitializerMemory {
 public:
  InitializerMemory(const ElfFile& elf, const std::vector<const DisassembledFunction*>& parts) {
    for (const auto& section : elf.sections())
      if ((section.flags & SHF_ALLOC) && section.size > 0) {
        image_begin_ = std::min(image_begin_, section.address);
        image_end_ = std::max(image_end_, (section.address + section.size + kPage - 1) / kPage * kPage);
      }
    for (const auto* part : parts)
      for (const auto& line : part->lines) stack_use(line, instruction_words(line));
  }

  // Why the instruction touches memory outside the library and its frame; empty if it does not.
  std::string problem(const std::string& line, const std::vector<std::string>& words) const {
    if (!stack_problem_.empty()) return stack_problem_;
    for (const auto& w : words) {
      if (w == "lea" || w.starts_with("nop")) return "";  // they access nothing
      if (kImplicitPointerWrites.count(w)) return kThroughPointer;
    }
    for (const auto& operand : operands_of(line, words)) {
      if (operand[0] == '$' || (operand[0] == '%' && operand.find(':') == std::string::npos && operand.find('(') == std::string::npos))
        continue;  // an immediate or a register
      const size_t open = operand.find('(');
      if (operand[0] == '%' || open == std::string::npos) return kThroughPointer;  // a segment (%fs: TLS), an absolute address
      const std::string inside = operand.substr(open + 1, operand.find(')') - open - 1);
      const std::string base = inside.substr(0, inside.find(','));
      if (base.size() != inside.size()) return "indexes memory with a register (an address it computes)";
      const int64_t offset = std::strtoll(operand.substr(0, open).c_str(), nullptr, 0);
      if (base == "%rip") {
        const size_t hash = line.find("# ", line.find(":\t"));
        const uint64_t target = hash == std::string::npos ? 0 : std::strtoull(line.c_str() + hash + 2, nullptr, 16);
        if (target < image_begin_ || target + kWidestAccess > image_end_) return "reads or writes memory outside the library";
      } else if (base == "%rsp") {
        if (offset < -kRedZone || offset >= frame_) return "reads or writes the stack outside its own frame";
      } else if (base == "%rbp") {
        if (!frame_pointer_ || offset >= 0 || offset < -(frame_ + kRedZone + kWidestAccess))
          return "reads or writes the stack outside its own frame";
      } else {
        return kThroughPointer;
      }
    }
    return "";
  }

 private:
  static constexpr uint64_t kPage = 4096;
  static constexpr int64_t kRedZone = 128, kWidestAccess = 64;  // below %rsp a leaf may use; a zmm register
  static constexpr const char* kThroughPointer = "reads or writes memory through a pointer";
  // Instructions that write at an address held in a register without naming it as an operand.
  inline static const std::set<std::string> kImplicitPointerWrites = {"maskmovq", "maskmovdqu", "vmaskmovdqu", "clzero"};

  // Records the frame that `sub $N,%rsp` allocates and a frame pointer (`mov %rsp,%rbp`); any other use of the
  // stack and frame pointer registers than a prologue's and epilogue's (a stack pointer moved by a computed
  // amount, or copied to address memory with) is a problem.
  void stack_use(const std::string& line, const std::vector<std::string>& words) {
    static const std::set<std::string> stack_registers = {"%rsp", "%esp", "%sp", "%spl", "%rbp", "%ebp", "%bp", "%bpl"};
    const auto operands = operands_of(line, words);
    if (std::none_of(operands.begin(), operands.end(), [](const std::string& o) { return stack_registers.count(o) > 0; })) return;
    const std::string mnemonic = words.empty() ? "" : words.back();
    const std::string joined = operands.size() == 2 ? operands[0] + "," + operands[1] : operands.size() == 1 ? operands[0] : "";
    const bool immediate = operands.size() == 2 && operands[0][0] == '$';
    if (mnemonic == "sub" && immediate && operands[1] == "%rsp" && frame_ == 0) {
      frame_ = std::strtoll(operands[0].c_str() + 1, nullptr, 0);
    } else if (mnemonic == "mov" && joined == "%rsp,%rbp") {
      frame_pointer_ = true;
    } else if (!(((mnemonic == "push" || mnemonic == "pop") && joined == "%rbp") || (mnemonic == "mov" && joined == "%rbp,%rsp") ||
                 ((mnemonic == "add" || mnemonic == "and") && immediate && operands[1] == "%rsp") ||
                 (mnemonic == "lea" && operands.size() == 2 && operands[0].ends_with("(%rbp)") && operands[1] == "%rsp"))) {
      stack_problem_ = "moves or copies its stack pointer";
    }
  }

  uint64_t image_begin_ = UINT64_MAX, image_end_ = 0;
  int64_t frame_ = 0;  // the bytes below the return address that its `sub $N,%rsp` allocates
  bool frame_pointer_ = false;
  std::string stack_problem_;
};

// What load-time code may do: call and jump only to `may_call` (besides its own parts), name only `may_use`
// otherwise, never branch through a pointer, and touch memory only where `memory` finds no problem (unset: anywhere).
struct LoadTimeLimits {
  std::function<bool(const std::string&)> may_call, may_use;
  std::function<std::string(const std::string& line, const std::vector<std::string>& words)> memory;
};

// The first thing the code of `parts` (the function `own`) does beyond `limits`; empty if nothing.
std::string beyond_limits(const std::vector<const DisassembledFunction*>& parts, const std::string& own, const LoadTimeLimits& limits) {
  for (const auto* part : parts)
    for (const auto& line : part->lines) {
      const auto words = instruction_words(line);  // prefixes (`bnd jmp`) and a target in hex may come with it
      const bool branch = is_branch(words);
      if (branch && line.find('*', line.find(":\t")) != std::string::npos) return "calls through a pointer";
      if (branch && referenced_symbols(line).empty()) return "branches to an address outside any function";
      for (const auto& name : referenced_symbols(line)) {
        if (name == own || name.starts_with(own + ".")) continue;
        if (branch ? !limits.may_call(name) : !limits.may_use(name)) return fmt::format("{} `{}`", branch ? "calls" : "uses", demangle(name));
      }
      if (limits.memory)
        if (std::string problem = limits.memory(line, words); !problem.empty()) return problem;
    }
  return "";
}

// Why the indirect function whose resolver is at `address` is not one the compiler generated for
// target_clones or target multiversioning; empty if it is. Such a resolver is named `NAME.resolver` (no
// C++ identifier has a dot), and its code only calls and reads `resolver_uses` (the CPU feature
// flags) and returns one of NAME's versions (`NAME`, `NAME.avx2`, ...): it runs at load time, but does
// nothing that the toolchain's own __cpu_indicator_init does not.
std::string foreign_resolver(const ObjectRules& rules, const ElfFile& elf, const Disassembly& code, uint64_t address) {
  const ElfSymbol* resolver = nullptr;
  for (const auto& s : elf.symbols())
    if (s.defined() && s.type == STT_FUNC && s.value == address && s.name.ends_with(".resolver")) resolver = &s;
  if (!resolver) {
    const ElfSymbol* named = elf.symbol_at(address);
    return fmt::format("its resolver {} is not one the compiler generates", named ? describe_function(named->name)
                                                                                   : fmt::format("at 0x{:x}", address));
  }
  const std::string& own = resolver->name;
  const std::string versions = own.substr(0, own.size() - std::string_view(".resolver").size());
  const auto parts = function_parts(code, address, own);
  if (parts.empty() || parts[0]->address != address) return code.error.empty() ? "its resolver's code was not found" : code.error;
  LoadTimeLimits limits;
  limits.may_call = [&](const std::string& name) { return rules.resolver_uses.count(name) > 0; };
  limits.may_use = [&](const std::string& name) {
    return rules.resolver_uses.count(name) || name == versions || name.starts_with(versions + ".");
  };
  // limits.memory unset: the feature flags are read through their address
  const std::string beyond = beyond_limits(parts, own, limits);
  return beyond.empty() ? "" : fmt::format("its resolver `{}` {}", demangle(own), beyond);
}

// Why a dynamic initialization (`_GLOBAL__sub_I_FILE`, in .init_array) is more than constants computed into
// the library's own variables; empty if it is not (`static const __m256 k = _mm256_set1_ps(1)`: the
// intrinsics are no constant expressions). Code that calls nothing, branches only within itself and
// touches only the library's own image and its own stack frame can do nothing at load time that
// constant data would not: no system call, no call into a library, no write outside its variables, which the
// runner snapshots after loading like any other data.
std::string impure_initializer(const ElfFile& elf, const Disassembly& code, const std::string& name) {
  const DisassembledFunction* main = nullptr;
  for (const auto& f : code.functions)
    if (f.name == name) main = &f;
  if (!main) return code.error.empty() ? "its code was not found" : code.error;
  const auto parts = function_parts(code, main->address, name);
  const InitializerMemory memory(elf, parts);
  LoadTimeLimits limits;
  limits.may_call = [](const std::string&) { return false; };
  limits.may_use = [](const std::string&) { return true; };  // RIP-relative: the library's own image, checked by `memory`
  limits.memory = [&](const std::string& line, const std::vector<std::string>& words) { return memory.problem(line, words); };
  return beyond_limits(parts, name, limits);
}

// Why the code of the toolchain's load- and exit-time functions (`rules.toolchain_functions`: nvcc's registration of
// the device code, its unregistration at exit, atexit) does more than call each other and the imports they may call;
// one line per function found doing more. They run by name (init_functions), but their calls bind to a function
// the candidate defines under a callee's name (hidden, its code is often inlined into them), which would run
// candidate code at load time.
std::vector<std::string> foreign_toolchain_code(const ObjectRules& rules, const ElfFile& elf, const Disassembly& code) {
  std::set<std::string> defined_functions;
  for (const auto& symbol : elf.symbols())
    if (symbol.defined() && symbol.type == STT_FUNC) defined_functions.insert(symbol.name);
  std::vector<std::string> found;
  for (const auto& symbol : elf.symbols()) {
    if (!symbol.defined() || symbol.type != STT_FUNC || !rules.toolchain_functions.count(symbol.name)) continue;
    const auto parts = function_parts(code, symbol.value, symbol.name);
    if (parts.empty()) continue;  // no code there: nothing runs
    const InitializerMemory memory(elf, parts);
    LoadTimeLimits limits;
    limits.may_call = [&](const std::string& name) {
      return rules.toolchain_functions.count(name) || (!defined_functions.count(name) && rules.toolchain_function_calls.matches(name));
    };
    limits.may_use = [](const std::string&) { return true; };  // RIP-relative: the library's own image, checked by `memory`
    limits.memory = [&](const std::string& line, const std::vector<std::string>& words) {
      return is_branch(words) ? std::string() : memory.problem(line, words);  // where a branch goes, may_call decides
    };
    if (const std::string beyond = beyond_limits(parts, symbol.name, limits); !beyond.empty())
      found.push_back(fmt::format("the toolchain's `{}`, which runs at load or exit time, {}", demangle(symbol.name), beyond));
  }
  return found;
}

// The functions besides the toolchain's (`rules.toolchain_functions`) that call its registration imports
// (`rules.toolchain_function_calls`: __cudaRegisterFatBinary, __cudaRegisterFunction, ...; __cxa_atexit aside, which a
// function-local static's destructor registers): the candidate registering device code of its own, such as a fatbin
// kept in .rodata, which no check of the library's device code (.nv_fatbin) reads.
std::vector<std::string> registration_outside_toolchain(const ObjectRules& rules, const Disassembly& code) {
  std::vector<std::string> found;
  for (const auto& f : code.functions) {
    if (rules.toolchain_functions.count(f.name) || f.name.find('@') != std::string::npos) continue;  // (PLT stubs)
    for (const auto& line : f.lines) {
      const auto names = referenced_symbols(line);
      const auto call = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
        return n != "__cxa_atexit" && rules.toolchain_function_calls.matches(n);
      });
      if (call == names.end()) continue;
      found.push_back(fmt::format("`{}` calls `{}`", demangle(f.name), *call));
      break;
    }
  }
  return found;
}

// Why the code of the .init and .fini sections (crti's and crtn's `_init` and `_fini`, which the loader runs, with
// whatever else the library's objects put between them: namespace-scope asm can append to a section under no name)
// does more than the toolchain's; one line per function. Their one call is crti's profiling hook, through the GOT
// slot of `__gmon_start__` that the instructions before it loaded and tested; their jumps stay inside them.
std::vector<std::string> foreign_init_section_code(const Disassembly& code) {
  std::vector<std::string> found;
  for (const auto& f : code.functions) {
    if (f.name != "_init" && f.name != "_fini") continue;
    bool hook_loaded = false;  // the last instructions but tests loaded __gmon_start__'s slot
    for (const auto& line : f.lines) {
      const auto words = instruction_words(line);
      const auto names = referenced_symbols(line);
      if (!is_branch(words)) {
        const bool test = std::any_of(words.begin(), words.end(), [](const std::string& w) { return w == "test" || w == "cmp"; });
        if (!test) hook_loaded = std::find(names.begin(), names.end(), "__gmon_start__") != names.end();
        continue;
      }
      std::string beyond;
      if (line.find('*', line.find(":\t")) != std::string::npos)
        beyond = hook_loaded ? "" : "calls through a pointer";
      else if (const auto other = std::find_if(names.begin(), names.end(), [&](const std::string& n) { return n != f.name; });
               other != names.end())
        beyond = fmt::format("calls `{}`", demangle(*other));
      else if (names.empty())
        beyond = "branches to an address outside any function";
      if (!beyond.empty()) {
        found.push_back(fmt::format("`{}`, the code the loader runs from the {} section, {}", f.name,
                                    f.name == "_init" ? ".init" : ".fini", beyond));
        break;
      }
      hook_loaded = hook_loaded && !words.empty() && words.back().starts_with("j");  // a test's jump keeps it
    }
  }
  return found;
}

// The addresses of the resolvers of the library's indirect functions, which the dynamic loader calls while it
// relocates the library: each with the indirect function's name, where it has one.
std::map<uint64_t, std::string> indirect_function_resolvers(const ElfFile& elf) {
  std::map<uint64_t, std::string> resolvers;
  for (const auto* table : {&elf.symbols(), &elf.dynamic_symbols()})
    for (const auto& symbol : *table)
      if (symbol.defined() && symbol.type == STT_GNU_IFUNC) resolvers[symbol.value] = symbol.name;
  for (const auto& r : elf.dynamic_relocations())
    if ((elf.machine() == EM_X86_64 && r.type == R_X86_64_IRELATIVE) || (elf.machine() == EM_AARCH64 && r.type == R_AARCH64_IRELATIVE))
      resolvers.emplace(uint64_t(r.addend), "");
  return resolvers;
}

// Code that runs when the library is loaded or unloaded, beyond what the toolchain always emits.
void check_load_time_code(const ObjectRules& rules, const ElfFile& elf, const Disassembly& code, std::vector<RuleViolation>& out) {
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
      // The compiler's dynamic initialization (its name, FILE.cpp, has a dot no C++ identifier has) passes where it
      // only computes the library's own variables.
      const bool initializers = function.starts_with("_GLOBAL__sub_I_") && function.find('.') != std::string::npos;
      const std::string impure = initializers ? impure_initializer(elf, code, function) : "";
      if (initializers && impure.empty()) continue;
      out.push_back({"object-load-time-code",
                     fmt::format("the library runs {} when it is {} ({}{}): candidates may not run code at load or exit time{}",
                                 describe_function(function), section_name == std::string(".init_array") ? "loaded" : "unloaded",
                                 section_name, initializers ? ", and it " + impure : "",
                                 initializers ? " but constants computed into their variables (give such variables constant "
                                                "initializers, constexpr, or compute them inside the call)"
                                              : "")});
    }
  }
  for (const auto& why : foreign_init_section_code(code))
    out.push_back({"object-load-time-code", why + ": candidates may not run code at load or exit time (namespace-scope asm "
                                                  "that adds code to .init or .fini)"});
  for (const auto& why : foreign_toolchain_code(rules, elf, code))
    out.push_back({"object-load-time-code", why + ": the library defines a function under the name of one the toolchain "
                                                  "calls (or runs code in it); candidates may not run code at load or exit time"});
  for (const auto& why : registration_outside_toolchain(rules, code))
    out.push_back({"object-module-registration", why + ": only the toolchain registers the library's device code (a candidate "
                                                       "registering code of its own would run what no check of the library read)"});
  for (const char* name : {".preinit_array", ".ctors", ".dtors"})
    if (elf.section(name)) out.push_back({"object-load-time-code", fmt::format("the library has a {} section (code run at load or exit time)", name)});
  for (const auto& symbol : elf.symbols()) {
    if (!symbol.defined() || symbol.name.empty() || symbol.section >= elf.sections().size()) continue;
    const std::string& section = elf.sections()[symbol.section].name;
    if ((section == ".init" && symbol.name != "_init") || (section == ".fini" && symbol.name != "_fini"))
      out.push_back({"object-load-time-code", fmt::format("`{}` is placed in the {} section, which runs at load or exit time",
                                                          demangle(symbol.name), section)});
  }
  // The toolchain's load and unload code calls these when the library defines them (weak references).
  std::set<std::string> hooks;
  for (const auto* table : {&elf.symbols(), &elf.dynamic_symbols()})
    for (const auto& symbol : *table)
      if (const std::string name = symbol.name.substr(0, symbol.name.find('@')); symbol.defined() && rules.load_hooks.count(name))
        hooks.insert(name);
  for (const auto& name : hooks)
    out.push_back({"object-load-time-code", fmt::format("the library defines `{}`, which the toolchain's startup or teardown code "
                                                        "calls when it is defined (at load or exit time): rename it",
                                                        name)});
  for (const auto& [address, name] : indirect_function_resolvers(elf)) {
    const std::string why = foreign_resolver(rules, elf, code, address);
    if (why.empty()) continue;
    out.push_back({"object-load-time-code",
                   fmt::format("the library has an indirect function{} whose resolver runs at load time, and {}: only the "
                               "resolvers the compiler generates for target_clones and target multiversioning are allowed "
                               "(or choose the code path at run time: __builtin_cpu_supports, and functions with "
                               "__attribute__((target(\"avx2,fma\"))))",
                               name.empty() ? "" : " `" + demangle(name) + "`", why)});
  }
}

// Memory both writable and executable, or an executable stack, runs code written at run time (a section
// attribute's flags or a linker option can ask for either): no kernel needs them.
void check_segments(const ElfFile& elf, std::vector<RuleViolation>& out) {
  for (const ElfSegment& segment : elf.segments()) {
    if (segment.type == PT_LOAD && (segment.flags & PF_W) && (segment.flags & PF_X))
      out.push_back({"object-segments", "the library maps memory that is both writable and executable, where code written at "
                                        "run time would run"});
    if (segment.type == PT_GNU_STACK && (segment.flags & PF_X))
      out.push_back({"object-segments", "the library asks for an executable stack, where code written at run time would run"});
  }
}

void check_thread_local_storage(const ElfFile& elf, std::vector<RuleViolation>& out) {
  bool tls = false;
  for (const ElfSegment& segment : elf.segments()) tls = tls || segment.type == PT_TLS;
  for (const auto& section : elf.sections()) tls = tls || (section.flags & SHF_TLS);
  if (!tls) return;
  std::string names;
  for (const auto& symbol : elf.symbols())
    if (symbol.type == STT_TLS && symbol.defined()) names += (names.empty() ? "" : ", ") + ("`" + demangle(symbol.name) + "`");
  out.push_back({"object-thread-local", fmt::format("the library has thread-local storage{} (thread_local, __thread, "
                                                    "omp threadprivate): ksearch cannot reset it between calls",
                                                    names.empty() ? "" : ": " + names)});
}

void check_instructions(const ObjectRules& rules, const Disassembly& code, std::vector<RuleViolation>& out) {
  if (!code.error.empty()) {
    out.push_back({"object-instructions", code.error});
    return;
  }
  std::map<std::string, std::string> found;  // instruction -> first function that has it
  for (const auto& function : code.functions)
    for (const auto& line : function.lines)
      for (const auto& word : instruction_words(line))
        if (rules.forbidden_instructions.count(word)) found.emplace(word, function.name);
  for (const auto& [instruction, where] : found)
    out.push_back({"object-instructions", fmt::format("the instruction `{}` (in `{}`) is not allowed on this target: "
                                                      "no system calls and no clock or counter reads",
                                                      instruction, demangle(where))});
}

// nvcc embeds the device code as ELF images in .nv_fatbin. Mutable __device__ variables live in
// their .nv.global (zero-initialized) and .nv.global.init sections and survive from call to call;
// what device code calls outside itself is an undefined symbol: the device runtime's heap (malloc,
// whose blocks also outlive a call), launches from the device, anything beyond printf and assert.
// Whether every declaration of the function-local static `name` in the candidate's preprocessed code is a constant
// table (`static const T name[N] = {...}`, `const static`, `static constexpr`), and there is one: the device ELF cannot
// tell such a table (emitted to .nv.global like a mutable one) from a variable, and a device function's local has no
// host-side shadow to read the qualifier from. From `static` (or the `const` before it) to the first `=`, `;`, `{`,
// `}` or `,`: a declaration naming `name` there with a pointer, a reference or parentheses, or without const, is not one.
// Nor is any where the code has a `mutable` member, which a const object's element keeps writable.
bool declared_only_as_const_local_table(const SourceScan& code, const std::string& name) {
  const auto& tokens = code.tokens;
  if (std::find(tokens.begin(), tokens.end(), "mutable") != tokens.end()) return false;
  bool found = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] != "static") continue;
    bool constant = i > 0 && (tokens[i - 1] == "const" || tokens[i - 1] == "constexpr"), names = false, plain = true;
    for (size_t j = i + 1; j < tokens.size(); ++j) {
      const std::string& t = tokens[j];
      if (t == "=" || t == ";" || t == "{" || t == "}" || t == ",") break;
      constant = constant || t == "const" || t == "constexpr";
      names = names || t == name;
      plain = plain && t != "*" && t != "&" && t != "&&" && t != "(";
    }
    if (!names) continue;
    if (!constant || !plain) return false;
    found = true;
  }
  return found;
}

void check_device_code(const ObjectRules& rules, const ElfFile& elf, const fs::path& library, const SourceScan* candidate_code,
                       std::vector<RuleViolation>& out) {
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
  // nvcc puts a file's internal-linkage names in a namespace of its own, `_INTERNAL_<hash>::`.
  const auto without_file_namespace = [](const std::string& name) {
    return name.starts_with("_INTERNAL_") && name.find("::") != std::string::npos ? name.substr(name.find("::") + 2) : name;
  };
  // A `__device__ const` (or constexpr) table: in the device ELF it cannot be told from an initialized mutable
  // variable, but nvcc gives every __device__ variable a host-side shadow of the same name and qualifiers, and a
  // const one sits in read-only data. (Written through a cast pointer, such a table is a channel like the
  // __constant__ memory the rules allow, which the after-the-fact checks of timed calls catch.)
  std::set<std::string> read_only_shadows, writable_shadows;
  for (const auto& symbol : elf.symbols())
    if (symbol.type == STT_OBJECT && symbol.defined() && symbol.section < elf.sections().size()) {
      const uint64_t flags = elf.sections()[symbol.section].flags;
      if (flags & SHF_ALLOC) ((flags & SHF_WRITE) ? writable_shadows : read_only_shadows).insert(demangle(symbol.name));
    }
  const auto const_table = [&](const std::string& name) {
    if (read_only_shadows.count(name) && !writable_shadows.count(name)) return true;
    // A function's local static: `f(int)::table`, `void g<4>(float*)::{lambda(int)#1}::operator()(int) const::table`.
    const size_t scope = name.rfind("::");
    return candidate_code && scope != std::string::npos && name.find('(') < scope &&
           declared_only_as_const_local_table(*candidate_code, name.substr(scope + 2));
  };
  for (const auto& global : globals)
    if (const std::string name = without_file_namespace(global); !rules.allowed_device_globals.matches(name) && !const_table(name))
      out.push_back({"object-device-globals", fmt::format("`{}` is a mutable __device__ variable in global memory, which keeps its value "
                                                        "from call to call: use const or __constant__ tables, registers or shared memory",
                                                        name)});
  for (const auto& name : calls)
    if (!rules.allowed_device_imports.matches(demangle(name)))
      out.push_back({"object-device-imports", fmt::format("the device code calls `{}`, which is not among the device runtime "
                                                          "functions a candidate may use (device heap memory outlives the call; "
                                                          "launch every kernel from the host on `stream`)",
                                                          demangle(name))});
}

}  // namespace

std::vector<RuleViolation> ObjectRules::check(const fs::path& library, const SourceScan* candidate_code) const {
  std::vector<RuleViolation> out;
  if (!enabled) return out;
  ElfFile elf;
  try {
    elf = ElfFile::load(library);
  } catch (const Error& e) {
    return {{"object", std::string("the built library could not be read: ") + e.what()}};
  }
  const Disassembly code(library);  // objdump once: instructions, resolvers, initializers
  check_imports(*this, elf, out);
  check_load_time_code(*this, elf, code, out);
  check_segments(elf, out);
  check_thread_local_storage(elf, out);
  if (!forbidden_instructions.empty()) check_instructions(*this, code, out);
  if (checks_device_code) check_device_code(*this, elf, library, candidate_code, out);
  return out;
}

}  // namespace ksearch::backends
