// Maps code addresses of a loaded kernel library to the lines of the kernel's body and header, so that a finding
// at a memory access (out of bounds, race, uninitialized read) names the line that made it.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ksearch::metalsim {

class LineTable {
 public:
  // Reads the library's line tables (compiled with -gline-tables-only) from its file: done when the library is
  // loaded, before a sandbox may refuse file opens. A library without them gives no lines.
  LineTable(const std::filesystem::path& so, void* dl_handle);
  ~LineTable();
  LineTable(const LineTable&) = delete;
  LineTable& operator=(const LineTable&) = delete;

  // "body line 7" or "header line 3" for the kernel line whose code contains the return address pc (the caller's
  // own line where the access sits in an inlined helper of metalsim's), or "" where none is known.
  std::string line_of(const void* return_address);

 private:
  struct Dwarf;
  std::unique_ptr<Dwarf> dwarf_;
  unsigned long load_bias_ = 0;
  std::mutex mu_;
  std::map<const void*, std::string> cache_;  // findings repeat at one access
};

}  // namespace ksearch::metalsim
