#pragma once
// The runner protocol: ksearch (the parent) drives a runner process (the child, which loads the
// untrusted candidate) with framed JSON messages over two pipes. Tensor data never travels on the
// pipes: it lives in a shared-memory file that both map. Results are judged by the parent from
// that memory, so a candidate can at most lie about timings, which the parent bounds separately.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ksearch::runner {

inline constexpr uint32_t kFrameMagic = 0x4b53524eu;  // "KSRN"
inline constexpr uint32_t kMaxFrameBytes = 64u << 20;

// Writes one frame; returns false if the pipe is closed.
bool write_frame(int fd, const nlohmann::json& message);
// Reads one frame, waiting at most timeout_ms (-1 = forever). nullopt on EOF, timeout sets *timed_out.
std::optional<nlohmann::json> read_frame(int fd, int timeout_ms, bool* timed_out = nullptr);

// Command-line flags the parent gives the runner.
struct RunnerArgs {
  int command_fd = -1;
  int result_fd = -1;
  int shm_fd = -1;
  uint64_t memory_limit_bytes = 0;  // 0 = no RLIMIT_AS (CUDA needs a huge address space)
  uint64_t cpu_seconds = 0;
  // Started under a memory checker (RunnerProcess's launcher): the checker's agent in this process
  // keeps the descriptors, files and sockets it reports through, so the sandbox is limits and dropped
  // privileges only (docs/EVALUATION.md).
  bool under_checker = false;
};

}  // namespace ksearch::runner
