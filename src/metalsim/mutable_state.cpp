// Program-scope and static variables outside the constant address space, found in the compiled kernel: Metal allows
// only `constant` ones, and a writable one would carry state from one call (and one thread) to the next, which the
// host build would keep. Read from the library's symbol table, so that every way of making one (a global, a
// function-local static, a mutable member of a constant) is found whatever the text looks like.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "core/demangle.hpp"
#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

namespace {

// The first writable variable's demangled name (metalsim's own two hooks and crtstuff's flag aside).
std::optional<std::string> writable_variable(const std::filesystem::path& so) {
  elf_version(EV_CURRENT);
  const int fd = open(so.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  std::optional<std::string> found;
  for (Elf_Scn* scn = elf ? elf_nextscn(elf, nullptr) : nullptr; scn && !found; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr table;
    if (!gelf_getshdr(scn, &table) || table.sh_type != SHT_SYMTAB || table.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (std::size_t i = 0; data && i < table.sh_size / table.sh_entsize && !found; ++i) {
      GElf_Sym sym;
      GElf_Shdr section;
      const int type = gelf_getsym(data, int(i), &sym) ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
      if ((type != STT_OBJECT && type != STT_TLS) || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF ||
          sym.st_shndx >= SHN_LORESERVE || !gelf_getshdr(elf_getscn(elf, sym.st_shndx), &section))
        continue;
      // Variables live in writable PROGBITS (.data, .tdata) and NOBITS (.bss, .tbss) sections.
      if (!(section.sh_flags & SHF_WRITE) || (section.sh_type != SHT_PROGBITS && section.sh_type != SHT_NOBITS))
        continue;
      const char* name = elf_strptr(elf, table.sh_link, sym.st_name);
      const std::string_view n = name ? name : "";
      if (n.empty() || n == "metalsim_rt" || n == "metalsim_checking" || n.starts_with("completed.") ||
          n.starts_with("DW.ref."))
        continue;
      found = demangle(name);
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return found;
}

// Where `variable` (`f()::count`, `counter`) is declared: the first header or body line naming it after `static`,
// else the first naming it (comments left out).
CompileMessage located(const std::string& variable, const KernelSpec& spec, std::string message) {
  const std::size_t scope = variable.rfind("::");
  const std::string name = variable.substr(scope == std::string::npos ? 0 : scope + 2);
  for (const bool after_static : {true, false})
    for (const auto& [file, text] : {std::pair{"header", &spec.header}, std::pair{"body", &spec.source}}) {
      int static_line = 0;
      for (const Token& t : tokenize(*text)) {
        if (t.kind != Tok::Ident) continue;
        if (t.text == "static") static_line = t.line;
        else if (t.text == name && (!after_static || static_line == t.line)) return {file, t.line, 0, "error", message};
      }
    }
  return {"generated", 0, 0, "error", message};
}

}  // namespace

std::optional<CompileMessage> mutable_state(const std::filesystem::path& so, const KernelSpec& spec) {
  auto variable = writable_variable(so);
  if (!variable) return std::nullopt;
  // A static with a dynamic initializer comes with a writable guard; name the variable it guards.
  if (constexpr std::string_view guard = "guard variable for "; variable->starts_with(guard))
    variable = variable->substr(guard.size());
  // `f(int)::count` is a function's static; `counter` and `ns::counter` are program-scope.
  const std::size_t scope = variable->rfind("::");
  const bool in_function = scope != std::string::npos && variable->substr(0, scope).find(')') != std::string::npos;
  std::string what = "'" + *variable + "' is a program-scope variable";
  if (in_function) {
    const std::string function = variable->substr(0, variable->find('('));
    what = "'" + variable->substr(scope + 2) + "' is a static variable of " +
           (function.starts_with("custom_kernel_") ? std::string("the kernel") : "'" + function + "'");
  }
  return located(*variable, spec,
                 what + " outside the constant address space: Metal allows only `constant` program-scope and static " +
                     "variables (a writable one would keep state between threads and calls)");
}

}  // namespace ksearch::metalsim
