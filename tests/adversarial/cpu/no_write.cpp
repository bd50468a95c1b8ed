// 1: writes nothing, hoping output left from an earlier run passes.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cstdint>
extern "C" void softmax(const float*, float*, int64_t, int64_t) {}
