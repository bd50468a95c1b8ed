#pragma once
// runner/link_tables: the GOT function slots of every object loaded beside the candidate, held still.
#include <string>
#include <vector>

namespace ksearch::runner {

// A candidate that points a library's writable GOT slot (libstdc++'s malloc, say) at its own code runs that code
// whenever the runner calls through the slot: between timed calls, out of the timer's sight (precomputing the
// next call's output), or inside the runner's own bookkeeping. Captured once the candidate is loaded and every
// object is bound (LD_BIND_NOW), the slots are compared after each command that ran candidate code: a change is
// put back and reported, and the runner refuses every later command.
class LinkTables {
 public:
  void capture(const std::string& candidate_library);
  // "" when every slot holds what it held at capture; else the first change, named (object, symbol), after
  // putting every slot back.
  std::string check_and_restore();
  size_t slots() const;

 private:
  struct Table {
    std::string object;
    void** slots;
    std::vector<void*> bound;
    std::vector<std::string> symbols;
  };
  std::vector<Table> tables_;
};

}  // namespace ksearch::runner
