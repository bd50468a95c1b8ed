// 11: opens a network socket.
// expect: rejected
// expect-without-rules: runtime_error
#include <cstdint>
extern "C" int socket(int domain, int type, int protocol);
extern "C" void softmax(const float*, float* y, int64_t, int64_t) { y[0] = float(socket(2, 1, 0)); }
