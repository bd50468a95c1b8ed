// 5: writes fake "ok, 1 microsecond" frames of the runner protocol to every pipe it has open,
// hoping to hit the result channel. The runner's replies carry the nonce of each command, which the
// candidate cannot know: the forgery is caught.
// expect: rejected
// expect-without-rules: rejected
#include <cstdint>
#include <cstring>
#include <sys/stat.h>
extern "C" long write(int fd, const void* buffer, unsigned long count);
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  const char body[] = "{\"ok\":true,\"ms\":0.001,\"times_ms\":[0.001,0.001,0.001,0.001,0.001]}";
  uint32_t header[2] = {0x4b53524eu, uint32_t(sizeof body - 1)};
  char frame[sizeof header + sizeof body];
  std::memcpy(frame, header, sizeof header);
  std::memcpy(frame + sizeof header, body, sizeof body - 1);
  for (int fd = 3; fd < 1024; ++fd) {
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode)) write(fd, frame, sizeof header + sizeof body - 1);
  }
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
}
