#include "runner/library_state.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "runner/sandbox.hpp"

namespace ksearch::runner {

void LibraryState::capture(const std::string& library) {
  segments_.clear();
  for (const MemoryRange& range : writable_segments(library)) {
    Segment s;
    s.address = reinterpret_cast<char*>(range.begin);
    s.snapshot.assign(s.address, s.address + (range.end - range.begin));
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
