// runner/library_state and the writable segments it resets: taken from the loader's list of objects, which a
// candidate's load-time code can change, and held against the kernel's mappings.
#include <dlfcn.h>
#include <link.h>

#include <gtest/gtest.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "runner/library_state.hpp"
#include "runner/sandbox.hpp"

namespace {
// libm: loaded in every test process and on no path an exception takes (its entry can be moved for a moment).
struct Libm {
  Libm() : handle(dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD)) {
    if (handle) dlinfo(handle, RTLD_DI_LINKMAP, &map);
  }
  ~Libm() {
    if (handle) dlclose(handle);
  }
  void* handle;
  link_map* map = nullptr;
};

std::string error_of(const std::string& library) {
  try {
    ksearch::runner::writable_segments(library);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

class WritableSegments : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!libm.map) GTEST_SKIP() << "libm.so.6 is not loaded by name here";
    if (ksearch::runner::writable_segments(libm.map->l_name).empty())
      GTEST_SKIP() << "this build's runner platform does not read writable segments (posix)";
  }
  Libm libm;
};

TEST_F(WritableSegments, ALibrarysSegmentsAreWithinItsMappingsAndRestoredFromTheTable) {
  const auto ranges = ksearch::runner::writable_segments(libm.map->l_name);
  std::vector<ksearch::runner::StateSegment> table(ranges.size());
  ksearch::runner::LibraryState state;
  ASSERT_EQ(state.capture(libm.map->l_name, table.data(), table.size()), ranges.size());
  EXPECT_THROW(state.capture(libm.map->l_name, table.data(), 0), std::runtime_error);
  ASSERT_EQ(state.capture(libm.map->l_name, table.data(), table.size()), ranges.size());
  // A word of libm's writable data changed and put back from the snapshot the table points to.
  char* word = table.front().address;
  char saved[sizeof(void*)];
  std::memcpy(saved, word, sizeof saved);
  std::memset(word, 0x5a, sizeof saved);
  ksearch::runner::LibraryState::restore(table.data(), table.size());
  EXPECT_EQ(std::memcmp(word, saved, sizeof saved), 0);
}

// A candidate's constructor moving its own loader entry (l_addr) made the reset write wherever it pointed: onto the
// runner's stack, the return address of the reset itself.
TEST_F(WritableSegments, ALoaderEntryMovedOutsideTheLibrarysMappingsIsRefused) {
  EXPECT_EQ(error_of(libm.map->l_name), "");
  const ElfW(Addr) original = libm.map->l_addr;
  libm.map->l_addr += ElfW(Addr)(1) << 30;
  const std::string moved = error_of(libm.map->l_name);
  libm.map->l_addr = original;
  EXPECT_NE(moved.find("outside its mappings"), std::string::npos) << moved;
}
