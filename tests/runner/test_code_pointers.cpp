// runner/code_pointers: the code pointers of the libraries loaded beside a candidate, held still.
#include <gtest/gtest.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "runner/code_pointers.hpp"
#include "runner/sandbox.hpp"


namespace {
void replacement_handler() {}

// The held words, where the runner keeps them on its guard pages.
struct Held {
  explicit Held(const std::vector<std::string>& immediate) : words(1 << 16) {
    count = pointers.capture("", immediate, words.data(), words.size());
  }
  std::string check_and_restore(bool immediate_only) { return pointers.check_and_restore(words.data(), count, immediate_only); }
  ksearch::runner::CodePointers pointers;
  std::vector<ksearch::runner::HeldWord> words;
  size_t count = 0;
};

std::string libstdcxx_object() {
  for (const auto& table : ksearch::runner::code_pointer_tables(""))
    if (table.object.find("libstdc++") != std::string::npos) return table.object;
  return "";
}
}  // namespace

// Run as the runner runs (LD_BIND_NOW=1, which ctest sets): lazily bound GOT slots would change under the test.
class CodePointers : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("LD_BIND_NOW")) GTEST_SKIP() << "LD_BIND_NOW is not set (ctest sets it)";
    if (ksearch::runner::code_pointer_tables("").empty())
      GTEST_SKIP() << "this build's runner platform does not read code pointers (posix)";
  }
};

// libstdc++ keeps its terminate handler, a pointer to its own code, in its writable data: not a GOT slot, the kind
// of word libcudart's table of the driver's entry points is made of.
TEST_F(CodePointers, AChangedLibraryFunctionPointerIsReportedAndPutBack) {
  ASSERT_FALSE(libstdcxx_object().empty()) << "libstdc++ has no code pointers in its writable data";
  Held held({});
  EXPECT_GT(held.count, held.pointers.got_slots());
  EXPECT_EQ(held.check_and_restore(false), "");
  const std::terminate_handler original = std::get_terminate();
  std::set_terminate(replacement_handler);
  const std::string change = held.check_and_restore(false);
  EXPECT_NE(change.find("a pointer to "), std::string::npos) << change;
  EXPECT_NE(change.find("terminate_handler"), std::string::npos) << change;
  EXPECT_NE(change.find("in the writable data of " + libstdcxx_object()), std::string::npos) << change;
  EXPECT_EQ(std::get_terminate(), original);
  EXPECT_EQ(held.check_and_restore(false), "");
}

// The immediate check (inside a timed region) covers the runtime's objects only.
TEST_F(CodePointers, TheImmediateCheckCoversTheRuntimeLibrariesOnly) {
  const std::terminate_handler original = std::get_terminate();
  Held elsewhere({"libcudart"});
  std::set_terminate(replacement_handler);
  EXPECT_EQ(elsewhere.check_and_restore(true), "");
  EXPECT_NE(elsewhere.check_and_restore(false), "");
  EXPECT_EQ(std::get_terminate(), original);

  Held runtime({"libstdc++"});
  std::set_terminate(replacement_handler);
  EXPECT_NE(runtime.check_and_restore(true).find("terminate_handler"), std::string::npos);
  EXPECT_EQ(std::get_terminate(), original);
}

// A GOT slot is named by its symbol.
TEST_F(CodePointers, AChangedGotSlotIsNamedBySymbol) {
  Held held({});
  ASSERT_GT(held.pointers.got_slots(), 0u);
  // The first writable GOT slot of any object, found as the runner finds them.
  for (const auto& table : ksearch::runner::code_pointer_tables("")) {
    for (const auto& [index, symbol] : table.got_symbols) {
      if (symbol.empty()) continue;
      auto* slot = reinterpret_cast<uintptr_t*>(table.words[index]);
      const uintptr_t bound = *slot;
      *slot = reinterpret_cast<uintptr_t>(&replacement_handler);
      const std::string change = held.check_and_restore(false);
      EXPECT_EQ(*slot, bound);
      EXPECT_NE(change.find("the GOT slot of " + table.object + " for " + symbol), std::string::npos) << change;
      return;
    }
  }
  FAIL() << "no named writable GOT slot in this process";
}
