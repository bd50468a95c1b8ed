// 5, 12: throws an object of its own type, no std::exception, through the runner (whose handler for candidates' exceptions
// reads what() of a std::exception): a runner that let it escape would end without a reply, and one that reported it
// without saying whose it is would pass it off as its own failure. It is quoted as the candidate's.
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: the candidate threw an exception that is not a std::exception
#include <cstdint>

namespace {
struct Verdict {
  const char* text;
};
}  // namespace

extern "C" void softmax(const float*, float*, int64_t, int64_t) { throw Verdict{"ok 0.001 ms"}; }
