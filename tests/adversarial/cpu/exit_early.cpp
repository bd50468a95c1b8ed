// 11: ends the process with status 0 before the harness checks anything.
// expect: rejected
// expect-without-rules: runtime_error
#include <cstdint>
#include <cstdlib>
extern "C" void softmax(const float*, float*, int64_t, int64_t) { std::exit(0); }
