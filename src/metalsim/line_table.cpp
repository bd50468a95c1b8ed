#include "metalsim/line_table.hpp"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

namespace ksearch::metalsim {

struct LineTable::Dwarf {
  Elf* elf = nullptr;
  ::Dwarf* dbg = nullptr;
  ~Dwarf() {
    if (dbg) dwarf_end(dbg);
    if (elf) elf_end(elf);
  }
};

LineTable::LineTable(const std::filesystem::path& so, void* dl_handle) : dwarf_(std::make_unique<Dwarf>()) {
  link_map* map = nullptr;
  if (dlinfo(dl_handle, RTLD_DI_LINKMAP, &map) == 0 && map) load_bias_ = map->l_addr;
  elf_version(EV_CURRENT);
  const int fd = open(so.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  // The file is read (or mapped) whole and its descriptor closed: later lookups read memory only (the runner's
  // sandbox refuses file opens by then), and a process loading many kernels holds no descriptor per library.
  dwarf_->elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (dwarf_->elf && elf_cntl(dwarf_->elf, ELF_C_FDREAD) == 0) dwarf_->dbg = dwarf_begin_elf(dwarf_->elf, DWARF_C_READ, nullptr);
  close(fd);
}

LineTable::~LineTable() = default;

namespace {

// The kernel section a #line file name of the generated source stands for, as diagnostics name it.
std::string section_line(const char* file, unsigned long line) {
  if (!file || line == 0) return "";
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  if (std::strcmp(base, "metalsim-body") == 0) return "body line " + std::to_string(line);
  if (std::strcmp(base, "metalsim-header") == 0) return "header line " + std::to_string(line);
  return "";
}

// The compile unit whose code holds addr (clang writes no .debug_aranges, which dwarf_addrdie would need).
bool unit_with(::Dwarf* dbg, Dwarf_Addr addr, Dwarf_Die& unit) {
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  while (dwarf_nextcu(dbg, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    if (dwarf_offdie(dbg, offset + header_size, &unit) && dwarf_haspc(&unit, addr) == 1) return true;
    offset = next;
  }
  return false;
}

// "body line 7" / "header line 3" for the code at addr, or "".
std::string kernel_line(::Dwarf* dbg, Dwarf_Addr addr) {
  Dwarf_Die cu;
  if (!unit_with(dbg, addr, cu)) return "";
  if (Dwarf_Line* line = dwarf_getsrc_die(&cu, addr)) {
    int number = 0;
    dwarf_lineno(line, &number);
    std::string found = section_line(dwarf_linesrc(line, nullptr, nullptr), static_cast<unsigned long>(number));
    if (!found.empty()) return found;
  }
  // Inside a helper inlined into the kernel (a shim operator, a vector access): the innermost call site that is a
  // kernel line.
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf_getsrcfiles(&cu, &files, &file_count) != 0) return "";
  Dwarf_Die* innermost = nullptr;
  const int innermost_count = dwarf_getscopes(&cu, addr, &innermost);
  // dwarf_getscopes goes on from an inlined call to its function's abstract definition, so that only the innermost
  // call site is among them; the concrete scopes holding the innermost one have every call site of a nested
  // inlining (a shim helper calling another).
  Dwarf_Die* scopes = nullptr;
  const int scope_count = innermost_count > 0 ? dwarf_getscopes_die(&innermost[0], &scopes) : 0;
  std::free(innermost);
  std::string found;
  for (int i = 0; i < scope_count && found.empty(); ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attribute;
    Dwarf_Word file = 0, line = 0;
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attribute), &file) != 0 ||
        dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attribute), &line) != 0 || file >= file_count)
      continue;
    found = section_line(dwarf_filesrc(files, file, nullptr, nullptr), line);
  }
  std::free(scopes);
  return found;
}

}  // namespace

std::string LineTable::line_of(const void* return_address) {
  if (!dwarf_->dbg || !return_address) return "";
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(return_address); it != cache_.end()) return it->second;
  std::string& found = cache_[return_address];
  // The call instruction ends at the return address: its last byte belongs to the access's line.
  const Dwarf_Addr addr = reinterpret_cast<uintptr_t>(return_address) - 1 - load_bias_;
  // On a thread of its own: the caller runs on a Metal thread's small fiber stack, and libdw reads line tables
  // into large stack arrays.
  try {
    std::thread lookup([&] { found = kernel_line(dwarf_->dbg, addr); });
    lookup.join();
  } catch (const std::system_error&) {
    // No thread to be had: the finding goes without its line.
  }
  return found;
}

}  // namespace ksearch::metalsim
