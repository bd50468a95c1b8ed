#include "runner/protocol.hpp"
#include "core/json_text.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <vector>

namespace ksearch::runner {

namespace {

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

// Reads exactly n bytes before the deadline. Returns 1 ok, 0 EOF/error, -1 timeout.
int read_all(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline, bool forever) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    int wait_ms = -1;
    if (!forever) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return -1;
      wait_ms = int(std::min<long long>(left, 1 << 30));
    }
    pollfd pfd{fd, POLLIN, 0};
    int ready = poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return 0;
    if (ready == 0) return -1;
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    p += r;
    n -= size_t(r);
  }
  return 1;
}

}  // namespace

bool write_frame(int fd, const nlohmann::json& message) {
  const std::string body = json_text(message);
  const uint32_t header[2] = {kFrameMagic, uint32_t(body.size())};
  return write_all(fd, header, sizeof header) && write_all(fd, body.data(), body.size());
}

std::optional<nlohmann::json> read_frame(int fd, int timeout_ms, bool* timed_out) {
  if (timed_out) *timed_out = false;
  const bool forever = timeout_ms < 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(forever ? 0 : timeout_ms);
  uint32_t header[2];
  int r = read_all(fd, header, sizeof header, deadline, forever);
  if (r < 0 && timed_out) *timed_out = true;
  if (r != 1 || header[0] != kFrameMagic || header[1] > kMaxFrameBytes) return std::nullopt;
  std::string body(header[1], '\0');
  r = read_all(fd, body.data(), body.size(), deadline, forever);
  if (r < 0 && timed_out) *timed_out = true;
  if (r != 1) return std::nullopt;
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

}  // namespace ksearch::runner
