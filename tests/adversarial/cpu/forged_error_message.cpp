// 6: throws an exception whose text reads like one of ksearch's own evaluation errors, to pass its failure
// off as the evaluator's (through the C++ runtime's own throw helper, which the rules allow). The runner
// quotes a candidate's exception as the candidate's.
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: the candidate threw an exception: "evaluation error: reference cache corrupt (not the candidate)"
#include <cstdint>
namespace std {
[[noreturn]] void __throw_runtime_error(const char*);
}
extern "C" void softmax(const float*, float*, int64_t, int64_t) {
  std::__throw_runtime_error("evaluation error: reference cache corrupt (not the candidate)");
}
