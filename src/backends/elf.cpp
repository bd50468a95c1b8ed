#include "backends/elf.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <map>

#include "core/error.hpp"
#include "core/paths.hpp"

namespace ksearch::backends {

template <class T>
T ElfFile::read(uint64_t offset) const {
  if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T))
    throw Error(fmt::format("{}: malformed ELF (offset {} is outside the file)", name_, offset));
  T value;
  std::memcpy(&value, bytes_.data() + offset, sizeof(T));
  return value;
}

namespace {

// A NUL-terminated name at `offset` in a string table.
std::string table_string(std::string_view table, uint64_t offset) {
  if (offset >= table.size()) return {};
  const std::string_view rest = table.substr(offset);
  return std::string(rest.substr(0, rest.find('\0')));
}

bool is_relative(uint16_t machine, uint32_t type) {
  return (machine == EM_X86_64 && type == R_X86_64_RELATIVE) || (machine == EM_AARCH64 && type == R_AARCH64_RELATIVE);
}

}  // namespace

ElfFile ElfFile::load(const std::filesystem::path& file) { return parse(read_file(file), file.string()); }

ElfFile ElfFile::parse(std::string bytes, std::string name) {
  ElfFile elf;
  elf.name_ = std::move(name);
  elf.bytes_ = std::move(bytes);
  if (elf.bytes_.size() < sizeof(Elf64_Ehdr) || elf.bytes_.compare(0, SELFMAG, ELFMAG) != 0 ||
      elf.bytes_[EI_CLASS] != ELFCLASS64 || elf.bytes_[EI_DATA] != ELFDATA2LSB)
    throw Error(fmt::format("{}: not a 64-bit little-endian ELF file", elf.name_));
  const auto header = elf.read<Elf64_Ehdr>(0);
  elf.machine_ = header.e_machine;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    const auto segment = elf.read<Elf64_Phdr>(header.e_phoff + uint64_t(i) * sizeof(Elf64_Phdr));
    elf.segments_.push_back({segment.p_type, segment.p_flags});
  }
  std::vector<Elf64_Shdr> raw;
  for (uint16_t i = 0; i < header.e_shnum; ++i)
    raw.push_back(elf.read<Elf64_Shdr>(header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr)));
  for (const auto& s : raw) {
    ElfSection section{{}, s.sh_type, s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size, s.sh_link};
    if (s.sh_type != SHT_NOBITS && (s.sh_offset > elf.bytes_.size() || elf.bytes_.size() - s.sh_offset < s.sh_size))
      throw Error(fmt::format("{}: malformed ELF (a section lies outside the file)", elf.name_));
    elf.sections_.push_back(section);
  }
  if (header.e_shstrndx < elf.sections_.size()) {
    const std::string_view names = elf.contents(elf.sections_[header.e_shstrndx]);
    for (size_t i = 0; i < raw.size(); ++i) elf.sections_[i].name = table_string(names, raw[i].sh_name);
  }
  for (const auto& section : elf.sections_) {
    if (section.type == SHT_DYNSYM) elf.dynamic_symbols_ = elf.read_symbols(section);
    if (section.type == SHT_SYMTAB) elf.symbols_ = elf.read_symbols(section);
  }
  elf.read_version_libraries();
  for (const auto& section : elf.sections_) {
    if (section.type != SHT_RELA || !(section.flags & SHF_ALLOC)) continue;  // dynamic relocations only
    for (uint64_t at = 0; at + sizeof(Elf64_Rela) <= section.size; at += sizeof(Elf64_Rela)) {
      const auto r = elf.read<Elf64_Rela>(section.offset + at);
      elf.relocations_.push_back({r.r_offset, uint32_t(ELF64_R_TYPE(r.r_info)), uint32_t(ELF64_R_SYM(r.r_info)), r.r_addend});
    }
  }
  return elf;
}

std::vector<ElfSymbol> ElfFile::read_symbols(const ElfSection& table) const {
  if (table.link >= sections_.size()) throw Error(fmt::format("{}: malformed ELF (symbol table without names)", name_));
  const std::string_view names = contents(sections_[table.link]);
  std::vector<ElfSymbol> out;
  for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= table.size; at += sizeof(Elf64_Sym)) {
    const auto s = read<Elf64_Sym>(table.offset + at);
    out.push_back({table_string(names, s.st_name), s.st_value, s.st_size, uint8_t(ELF64_ST_TYPE(s.st_info)),
                   uint8_t(ELF64_ST_BIND(s.st_info)), s.st_shndx});
  }
  return out;
}

// .gnu.version gives each dynamic symbol a version index; .gnu.version_r names the library that
// each needed version index belongs to.
void ElfFile::read_version_libraries() {
  const ElfSection *versions = nullptr, *needs = nullptr;
  for (const auto& s : sections_) {
    if (s.type == SHT_GNU_versym) versions = &s;
    if (s.type == SHT_GNU_verneed) needs = &s;
  }
  if (!versions || !needs || needs->link >= sections_.size()) return;
  const std::string_view names = contents(sections_[needs->link]);
  std::map<uint16_t, std::string> library_of_version;
  uint64_t at = needs->offset;
  for (uint64_t n = 0; n < needs->size / sizeof(Elf64_Verneed) + 1; ++n) {  // bounded: a malformed chain cannot loop
    const auto need = read<Elf64_Verneed>(at);
    uint64_t aux_at = at + need.vn_aux;
    for (uint16_t i = 0; i < need.vn_cnt; ++i) {
      const auto aux = read<Elf64_Vernaux>(aux_at);
      library_of_version[aux.vna_other] = table_string(names, need.vn_file);
      if (!aux.vna_next) break;
      aux_at += aux.vna_next;
    }
    if (!need.vn_next) break;
    at += need.vn_next;
  }
  for (size_t i = 0; i < dynamic_symbols_.size(); ++i) {
    if (dynamic_symbols_[i].defined()) continue;
    const uint16_t index = read<uint16_t>(versions->offset + 2 * i) & 0x7fff;
    if (auto it = library_of_version.find(index); it != library_of_version.end()) dynamic_symbols_[i].library = it->second;
  }
}

const ElfSection* ElfFile::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view ElfFile::contents(const ElfSection& section) const {
  if (section.type == SHT_NOBITS) return {};
  return std::string_view(bytes_).substr(section.offset, section.size);
}

const ElfSymbol* ElfFile::symbol_at(uint64_t address) const {
  for (const auto& s : symbols_)
    if (s.defined() && s.value == address && (s.type == STT_FUNC || s.type == STT_OBJECT) && !s.name.empty()) return &s;
  return nullptr;
}

std::vector<std::string> ElfFile::function_pointer_array(const ElfSection& section) const {
  std::vector<std::string> out;
  for (uint64_t at = 0; at + 8 <= section.size; at += 8) {
    const uint64_t slot = section.address + at;
    // Without a relocation the slot holds the address itself (a position-dependent link).
    uint64_t target = section.type == SHT_NOBITS ? 0 : read<uint64_t>(section.offset + at);
    std::string name;
    for (const auto& r : relocations_) {
      if (r.offset != slot) continue;
      if (is_relative(machine_, r.type)) target = uint64_t(r.addend);
      else if (r.symbol < dynamic_symbols_.size()) name = dynamic_symbols_[r.symbol].name;
    }
    if (name.empty()) {
      const ElfSymbol* symbol = symbol_at(target);
      name = symbol ? symbol->name : fmt::format("0x{:x}", target);
    }
    out.push_back(name);
  }
  return out;
}

std::vector<ElfFile> embedded_elf_files(std::string_view bytes, const std::string& name) {
  std::vector<ElfFile> out;
  for (size_t at = bytes.find(ELFMAG); at != std::string_view::npos; at = bytes.find(ELFMAG, at + 1)) {
    if (bytes.size() - at < sizeof(Elf64_Ehdr) || bytes[at + EI_CLASS] != ELFCLASS64) continue;
    Elf64_Ehdr header;
    std::memcpy(&header, bytes.data() + at, sizeof header);
    // An image ends with its last table or section; section contents are bounded by parse().
    uint64_t end = std::max(header.e_shoff + uint64_t(header.e_shnum) * sizeof(Elf64_Shdr),
                            header.e_phoff + uint64_t(header.e_phnum) * sizeof(Elf64_Phdr));
    for (uint16_t i = 0; i < header.e_shnum; ++i) {
      const uint64_t entry = header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr);
      if (entry > bytes.size() - at || bytes.size() - at - entry < sizeof(Elf64_Shdr)) break;
      Elf64_Shdr s;
      std::memcpy(&s, bytes.data() + at + entry, sizeof s);
      if (s.sh_type != SHT_NOBITS) end = std::max(end, s.sh_offset + s.sh_size);
    }
    if (end > bytes.size() - at) continue;
    try {
      out.push_back(ElfFile::parse(std::string(bytes.substr(at, end)), fmt::format("{} (embedded ELF at {})", name, at)));
      at += end - 1;
    } catch (const Error&) {  // the magic bytes inside other data: keep looking
    }
  }
  return out;
}

}  // namespace ksearch::backends
