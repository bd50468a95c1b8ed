#include "runner/library_state.hpp"

#include <link.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace ksearch::runner {

namespace {
struct SearchContext {
  std::string path;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  bool found = false;
};

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* ctx = static_cast<SearchContext*>(data);
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  std::error_code ec;
  if (!std::filesystem::equivalent(info->dlpi_name, ctx->path, ec)) return 0;
  ctx->found = true;
  // The part of the writable segment that becomes read-only after relocation (RELRO) is not data.
  uintptr_t relro_begin = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
      relro_begin = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      relro_end = (relro_begin + info->dlpi_phdr[i].p_memsz + 4095) & ~uintptr_t(4095);
    }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    if (relro_end > begin && relro_begin < end) {
      if (relro_begin > begin) ctx->ranges.emplace_back(begin, relro_begin);
      begin = std::max(begin, relro_end);
    }
    if (end > begin) ctx->ranges.emplace_back(begin, end);
  }
  return 1;
}
}  // namespace

void LibraryState::capture(const std::string& library) {
  SearchContext ctx;
  ctx.path = library;
  dl_iterate_phdr(visit, &ctx);
  if (!ctx.found) throw std::runtime_error("loaded library not found in the process: " + library);
  segments_.clear();
  for (const auto& [begin, end] : ctx.ranges) {
    Segment s;
    s.address = reinterpret_cast<char*>(begin);
    s.snapshot.assign(s.address, s.address + (end - begin));
    segments_.push_back(std::move(s));
  }
}

void LibraryState::restore() const {
  for (const auto& s : segments_) std::memcpy(s.address, s.snapshot.data(), s.snapshot.size());
}

size_t LibraryState::bytes() const {
  size_t total = 0;
  for (const auto& s : segments_) total += s.snapshot.size();
  return total;
}

}  // namespace ksearch::runner
