// 5: puts each pipe it has open in place of stdout with `(dup2)(fd, 1)`, a call the old `name(`
// patterns did not match, and prints fake "ok, 1 microsecond" frames of the runner protocol on it,
// hoping to hit the result channel. Identifiers are now checked on every use (and the library's
// import of dup2 is not allowed). Without the rules the nonce every reply must echo exposes the
// forgery.
// expect: rejected
// expect-without-rules: rejected
#include <cstdint>
#include <cstdio>
#include <cstring>
extern "C" int dup2(int from, int to);
extern "C" int fstat(int fd, void* info);  // x86-64 struct stat: 144 bytes, st_mode at byte 24
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  const char body[] = "{\"ok\":true,\"ms\":0.001,\"times_ms\":[0.001,0.001,0.001,0.001,0.001]}";
  uint32_t header[2] = {0x4b53524eu, uint32_t(sizeof body - 1)};
  char frame[sizeof header + sizeof body];
  std::memcpy(frame, header, sizeof header);
  std::memcpy(frame + sizeof header, body, sizeof body);
  for (int fd = 3; fd < 1024; ++fd) {
    unsigned char info[144];
    uint32_t mode = 0;
    if (fstat(fd, info) != 0) continue;
    std::memcpy(&mode, info + 24, sizeof mode);
    if ((mode & 0170000) != 0010000 || (dup2)(fd, 1) != 1) continue;  // pipes only
    for (size_t i = 0; i < sizeof header + sizeof body - 1; ++i) std::putchar(frame[i]);
    std::fflush(stdout);
  }
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
}
