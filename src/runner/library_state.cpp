#include "runner/library_state.hpp"

#include <cstring>
#include <stdexcept>

#include "runner/sandbox.hpp"

namespace ksearch::runner {

size_t LibraryState::capture(const std::string& library, StateSegment* table, size_t capacity) {
  const std::vector<MemoryRange> ranges = writable_segments(library);
  if (ranges.size() > capacity)
    throw std::runtime_error("the candidate library has " + std::to_string(ranges.size()) + " writable segments (at most " +
                             std::to_string(capacity) + ")");
  snapshots_.clear();
  snapshots_.reserve(ranges.size());  // no reallocation: the table points into these
  for (size_t i = 0; i < ranges.size(); ++i) {
    char* address = reinterpret_cast<char*>(ranges[i].begin);
    snapshots_.emplace_back(address, address + (ranges[i].end - ranges[i].begin));
    table[i] = {address, snapshots_.back().data(), snapshots_.back().size()};
  }
  return ranges.size();
}

void LibraryState::restore(const StateSegment* table, size_t count) {
  for (size_t i = 0; i < count; ++i) std::memcpy(table[i].address, table[i].snapshot, table[i].bytes);
}

}  // namespace ksearch::runner
