#pragma once
// runner/library_state: a candidate library's writable data, saved after loading and put back
// before every call (its segments come from runner/sandbox.hpp's writable_segments).
#include <cstddef>
#include <string>
#include <vector>

namespace ksearch::runner {

// One writable segment of the candidate and where its saved bytes are.
struct StateSegment {
  char* address;
  const char* snapshot;
  size_t bytes;
};

// The writable data (.data, .bss) of a loaded candidate library, captured after loading and put
// back before every call: state kept between calls (results cached across calls or timed
// repetitions) is erased, whatever the candidate names it.
class LibraryState {
 public:
  // Captures the writable segments of the loaded library whose path is `library` and lists them in `table` (at most
  // `capacity`; throws beyond): the runner keeps that list where the candidate cannot write it, since restore() writes
  // wherever it points (a red-team candidate added an entry that overwrote restore's own return address, and ran its
  // kernel inside `prepare`, off the clock). The saved bytes stay here: changing them changes only the candidate's
  // own data.
  size_t capture(const std::string& library, StateSegment* table, size_t capacity);
  static void restore(const StateSegment* table, size_t count);

 private:
  std::vector<std::vector<char>> snapshots_;
};

}  // namespace ksearch::runner
