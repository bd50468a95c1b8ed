#include "runner/code_pointers.hpp"

#include <dlfcn.h>

#include <stdexcept>

#include "runner/sandbox.hpp"

namespace ksearch::runner {

size_t CodePointers::capture(const std::string& candidate_library, const std::vector<std::string>& immediate,
                             HeldWord* storage, size_t capacity) {
  tables_.clear();
  size_t count = 0;
  for (CodePointerTable& t : code_pointer_tables(candidate_library)) {
    bool checked_at_once = false;
    for (const std::string& part : immediate) checked_at_once |= t.object.find(part) != std::string::npos;
    if (count + t.words.size() > capacity)
      throw std::runtime_error("more code pointers to hold than the runner has room for (" + std::to_string(capacity) + ")");
    tables_.push_back({std::move(t.object), std::move(t.got_symbols), count});
    for (const uintptr_t word : t.words) {
      auto* address = reinterpret_cast<uintptr_t*>(word);
      storage[count++] = {address, *address, uint32_t(tables_.size() - 1), checked_at_once ? 1u : 0u};
    }
  }
  return count;
}

std::string CodePointers::check_and_restore(const HeldWord* words, size_t count, bool immediate_only) const {
  // Every word is put back before anything allocates: a hooked allocator would run the candidate's code.
  size_t changed = count;
  for (size_t i = 0; i < count; ++i) {
    const HeldWord& w = words[i];
    if ((immediate_only && !w.immediate) || *w.address == w.value) continue;
    if (changed == count) changed = i;
    *w.address = w.value;
  }
  return changed < count ? describe(words, changed) : "";
}

// A GOT slot by its symbol; another word by what it pointed to (the symbol dladdr finds, else the object).
std::string CodePointers::describe(const HeldWord* words, size_t word) const {
  if (words[word].table >= tables_.size()) return "a held code pointer";
  const Table& table = tables_[words[word].table];
  if (const auto got = table.got_symbols.find(word - table.first); got != table.got_symbols.end())
    return "the GOT slot of " + table.object +
           (got->second.empty() ? " at index " + std::to_string(word - table.first) : " for " + got->second);
  Dl_info target{};
  const std::string what = !dladdr(reinterpret_cast<void*>(words[word].value), &target) ? "code"
                           : target.dli_sname                                            ? target.dli_sname
                                                                                          : std::string("code of ") + target.dli_fname;
  return "a pointer to " + what + " in the writable data of " + table.object;
}

size_t CodePointers::got_slots() const {
  size_t total = 0;
  for (const Table& t : tables_) total += t.got_symbols.size();
  return total;
}

}  // namespace ksearch::runner
