#pragma once
// Host-side helpers of the cuda backend: finding nvcc, the target architecture, the nvcc command
// line, and the export bundle (`ksearch export`).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tasks/signature.hpp"
#include "tasks/task.hpp"

namespace ksearch::cuda {

// $KSEARCH_NVCC, $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc or nvcc on PATH; empty if none.
std::filesystem::path nvcc_path();

struct GpuQuery {
  bool present = false;
  std::string compute_cap;  // e.g. "9.0"
  std::string fingerprint;  // nvidia-smi's compute_cap, name, uuid and driver of GPU 0
  std::string why;          // when not present
};
const GpuQuery& query_gpu();  // asked once per process

// nvcc architecture suffix, e.g. "90a": $KSEARCH_CUDA_ARCH ("90a" or "sm_90a"), else GPU 0's
// compute capability (with "a" on sm_90, for wgmma), else "90a" (a machine without a GPU builds for Hopper).
std::string target_arch();

// The nvcc options that widen the language as PyTorch's and CUTLASS's builds do, which honest kernels rely on:
// constexpr host functions in device code (std::max, std::numeric_limits<float>::infinity()) and __device__
// lambdas. In every candidate build and in the exported build lines.
const std::vector<std::string>& nvcc_language_flags();

// nvcc command line that compiles `input` into the shared object `output` for `arch`.
std::vector<std::string> nvcc_command(const std::string& arch, const std::string& input, const std::string& output);

// How cuda candidates spell their entry point: __half and __nv_bfloat16, and a trailing
// `cudaStream_t stream` on which every kernel is launched.
tasks::CallConvention call_convention();

// `ksearch export` for cuda: the files of a standalone bundle for a candidate, name -> contents:
// <task>.cu (the kernel with its C entry point), <task>_torch.cpp (a PyTorch extension calling it on
// the current stream), setup.py, and README.md with the signature and build commands.
std::vector<std::pair<std::string, std::string>> cuda_export_bundle(const tasks::Task& task, const std::string& source);

}  // namespace ksearch::cuda
