// 5/11: calls libc's write(2) on the runner's stdout, declaring it under the name that ordinary variables
// share. The text rules take the name for the candidate's own; the object rules see the import and refuse
// it. Without them the call writes to stdout and the output is never computed.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cstdint>

extern "C" long write(int fd, const void* bytes, unsigned long count);

extern "C" void softmax(const float*, float*, int64_t, int64_t) { write(1, "done\n", 5); }
