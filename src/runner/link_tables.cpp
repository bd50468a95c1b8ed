#include "runner/link_tables.hpp"

#include "runner/sandbox.hpp"

namespace ksearch::runner {

void LinkTables::capture(const std::string& candidate_library) {
  tables_.clear();
  for (LinkTable& t : link_tables(candidate_library)) {
    Table table{std::move(t.object), reinterpret_cast<void**>(t.begin), {}, std::move(t.symbols)};
    table.bound.assign(table.slots, table.slots + table.symbols.size());
    tables_.push_back(std::move(table));
  }
}

std::string LinkTables::check_and_restore() {
  // Every slot is put back before anything allocates: a hooked allocator would run the candidate's code.
  const Table* changed_table = nullptr;
  size_t changed_slot = 0;
  for (const Table& t : tables_)
    for (size_t i = 0; i < t.bound.size(); ++i) {
      if (t.slots[i] == t.bound[i]) continue;
      if (!changed_table) changed_table = &t, changed_slot = i;
      t.slots[i] = t.bound[i];
    }
  if (!changed_table) return "";
  const std::string& symbol = changed_table->symbols[changed_slot];
  return "the GOT slot of " + changed_table->object +
         (symbol.empty() ? " at index " + std::to_string(changed_slot) : " for " + symbol);
}

size_t LinkTables::slots() const {
  size_t total = 0;
  for (const Table& t : tables_) total += t.bound.size();
  return total;
}

}  // namespace ksearch::runner
