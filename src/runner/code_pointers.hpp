#pragma once
// runner/code_pointers: the code pointers in the writable data of every object loaded beside the candidate, held
// still.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ksearch::runner {

// One held word: where it is and what it held at capture.
struct HeldWord {
  uintptr_t* address;
  uintptr_t value;
  uint32_t table;   // the object it belongs to (CodePointers' order)
  uint32_t immediate;  // 1: an object checked also by check_and_restore(immediate_only = true)
};

// A candidate that points a library's writable GOT slot (libstdc++'s malloc, say) or an entry of a library's own
// table of function pointers (libcudart's pointers to the driver's cuEventRecord, found by their values) at its
// own code runs that code whenever the runner calls through it: between timed calls, out of the timer's sight
// (precomputing the next call's output), inside the runner's own bookkeeping, or in place of the timer itself.
// Captured once the candidate is loaded, every object bound (LD_BIND_NOW) and the runtime set up, the words are
// compared after each command that ran candidate code, and those of the `immediate` objects (the runtime the
// runner calls first after the candidate returns) also right after each call: a change is put back and reported,
// and the runner refuses every later command. The held words themselves are the caller's to keep where the
// candidate cannot change them (the runner's guard pages, runner/sandbox.hpp); this class keeps only what names
// them in messages.
class CodePointers {
 public:
  // Writes the held words into `storage` (room for `capacity`); returns how many (throws when they do not fit).
  // `immediate`: parts of the paths of the objects checked also by check_and_restore(..., true).
  size_t capture(const std::string& candidate_library, const std::vector<std::string>& immediate, HeldWord* storage,
                 size_t capacity);
  // "" when every word holds what it held at capture (only the immediate objects' words checked when
  // `immediate_only`); else the first change, named, after putting every checked word back.
  std::string check_and_restore(const HeldWord* words, size_t count, bool immediate_only) const;
  size_t got_slots() const;

 private:
  struct Table {
    std::string object;
    std::map<size_t, std::string> got_symbols;  // the words that are GOT slots, by index in the table, with their symbols
    size_t first = 0;                           // its first word's index among all held words
  };
  std::string describe(const HeldWord* words, size_t word) const;
  std::vector<Table> tables_;
};

}  // namespace ksearch::runner
