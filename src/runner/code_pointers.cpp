#include "runner/code_pointers.hpp"

#include <dlfcn.h>

#include <cstdint>

#include "runner/sandbox.hpp"

namespace ksearch::runner {

void CodePointers::capture(const std::string& candidate_library, const std::vector<std::string>& immediate) {
  tables_.clear();
  for (CodePointerTable& t : code_pointer_tables(candidate_library)) {
    Table table{std::move(t.object), {}, {}, std::move(t.got_symbols)};
    for (const uintptr_t word : t.words) {
      table.words.push_back(reinterpret_cast<uintptr_t*>(word));
      table.held.push_back(*table.words.back());
    }
    for (const std::string& part : immediate) table.immediate |= table.object.find(part) != std::string::npos;
    tables_.push_back(std::move(table));
  }
}

std::string CodePointers::check_and_restore(bool immediate_only) {
  // Every word is put back before anything allocates: a hooked allocator would run the candidate's code.
  const Table* changed_table = nullptr;
  size_t changed_word = 0;
  for (const Table& t : tables_) {
    if (immediate_only && !t.immediate) continue;
    for (size_t i = 0; i < t.held.size(); ++i) {
      if (*t.words[i] == t.held[i]) continue;
      if (!changed_table) changed_table = &t, changed_word = i;
      *t.words[i] = t.held[i];
    }
  }
  return changed_table ? describe(*changed_table, changed_word) : "";
}

// A GOT slot by its symbol; another word by what it pointed to (the symbol dladdr finds, else the object).
std::string CodePointers::describe(const Table& table, size_t word) {
  if (const auto got = table.got_symbols.find(word); got != table.got_symbols.end())
    return "the GOT slot of " + table.object + (got->second.empty() ? " at index " + std::to_string(word) : " for " + got->second);
  Dl_info target{};
  const std::string what = !dladdr(reinterpret_cast<void*>(table.held[word]), &target) ? "code"
                           : target.dli_sname                                          ? target.dli_sname
                                                                                      : std::string("code of ") + target.dli_fname;
  return "a pointer to " + what + " in the writable data of " + table.object;
}

size_t CodePointers::words() const {
  size_t total = 0;
  for (const Table& t : tables_) total += t.held.size();
  return total;
}

size_t CodePointers::got_slots() const {
  size_t total = 0;
  for (const Table& t : tables_) total += t.got_symbols.size();
  return total;
}

}  // namespace ksearch::runner
