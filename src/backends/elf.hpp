#pragma once
// A reader for the 64-bit little-endian ELF files the backends build (host shared objects, and the
// device ELFs nvcc embeds in them): sections, segments, symbols and dynamic relocations. Every
// offset is checked against the file, so a malformed file is an Error, never a crash.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ksearch::backends {

struct ElfSegment {
  uint32_t type;   // PT_*
  uint32_t flags;  // PF_R, PF_W, PF_X
};

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0;
  uint32_t link = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0, binding = 0;
  uint16_t section = 0;  // SHN_UNDEF: imported
  std::string library;   // imported: the library the linker bound it to by symbol version, if versioned
  bool defined() const { return section != 0; }
};

struct ElfRelocation {
  uint64_t offset = 0;
  uint32_t type = 0, symbol = 0;  // symbol: index into dynamic_symbols()
  int64_t addend = 0;
};

class ElfFile {
 public:
  static ElfFile load(const std::filesystem::path& file);    // throws Error naming the file
  static ElfFile parse(std::string bytes, std::string name);  // name: for messages

  uint16_t machine() const { return machine_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  std::string_view contents(const ElfSection& section) const;  // empty for SHT_NOBITS
  const std::vector<ElfSegment>& segments() const { return segments_; }
  const std::vector<ElfSymbol>& dynamic_symbols() const { return dynamic_symbols_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }  // .symtab
  const std::vector<ElfRelocation>& dynamic_relocations() const { return relocations_; }
  // The .symtab function or object that starts at `address`, if any.
  const ElfSymbol* symbol_at(uint64_t address) const;
  // The functions an array of code pointers (.init_array, .fini_array) calls, in order: each entry
  // resolved through its dynamic relocation; the symbol's name, or the address in hex if none.
  std::vector<std::string> function_pointer_array(const ElfSection& section) const;

 private:
  std::vector<ElfSymbol> read_symbols(const ElfSection& table) const;
  void read_version_libraries();
  template <class T>
  T read(uint64_t offset) const;

  std::string name_;
  std::string bytes_;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  std::vector<ElfSymbol> dynamic_symbols_, symbols_;
  std::vector<ElfRelocation> relocations_;
};

// Every ELF image found inside `bytes` (nvcc's fatbin holds one per device architecture).
std::vector<ElfFile> embedded_elf_files(std::string_view bytes, const std::string& name);

}  // namespace ksearch::backends
