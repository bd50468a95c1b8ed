#pragma once
// runner/code_pointers: the code pointers in the writable data of every object loaded beside the candidate, held
// still.
#include <map>
#include <string>
#include <vector>

namespace ksearch::runner {

// A candidate that points a library's writable GOT slot (libstdc++'s malloc, say) or an entry of a library's own
// table of function pointers (libcudart's pointers to the driver's cuEventRecord, found by their values) at its
// own code runs that code whenever the runner calls through it: between timed calls, out of the timer's sight
// (precomputing the next call's output), inside the runner's own bookkeeping, or in place of the timer itself.
// Captured once the candidate is loaded, every object bound (LD_BIND_NOW) and the runtime set up, the words are
// compared after each command that ran candidate code, and those of the `immediate` objects (the runtime the
// runner calls first after the candidate returns) also right after each call: a change is put back and reported,
// and the runner refuses every later command.
class CodePointers {
 public:
  // `immediate`: parts of the paths of the objects checked also by check_and_restore(true).
  void capture(const std::string& candidate_library, const std::vector<std::string>& immediate);
  // "" when every word holds what it held at capture (only the immediate objects' words checked when
  // `immediate_only`); else the first change, named, after putting every checked word back.
  std::string check_and_restore(bool immediate_only);
  size_t words() const;
  size_t got_slots() const;

 private:
  struct Table {
    std::string object;
    std::vector<uintptr_t*> words;
    std::vector<uintptr_t> held;
    std::map<size_t, std::string> got_symbols;  // the words that are GOT slots, by index, with their symbols
    bool immediate = false;
  };
  static std::string describe(const Table& table, size_t word);
  std::vector<Table> tables_;
};

}  // namespace ksearch::runner
