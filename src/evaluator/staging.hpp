#pragma once
// Running a built library in a runner process: loading it, where one call's tensors sit in the shared
// memory, staging a call and requesting it. Shared by the candidate's trials and the device reference,
// so both run a workload the same way.
#include <chrono>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "runner/parent.hpp"
#include "tasks/inputs.hpp"
#include "tasks/signature.hpp"
#include "tasks/task.hpp"

namespace ksearch::evaluator {

// Loads a build into a started runner; returns the runner's reply (with "sandbox").
nlohmann::json load_build(runner::RunnerProcess& process, backends::Backend& backend, const tasks::Task& task, const backends::BuildResult& build,
                          std::chrono::milliseconds timeout);

// The tensors of one workload in the entry's call order ("slots"), for `sets` rotating buffer sets.
struct StagingLayout {
  tasks::CallLayout call;
  std::vector<size_t> bytes;  // per tensor slot
  std::vector<bool> is_output;
  std::vector<int> output_index;  // per slot: index into Task::outputs, -1 for inputs
  std::vector<DType> dtypes;
  std::vector<size_t> row_lengths;  // per slot: the innermost dimension (what norm-wise checks call a row)
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> offsets;  // [set][slot], -1 when absent
  size_t total = 0;
  nlohmann::json command_base;
};

StagingLayout make_staging_layout(const tasks::Task& task, const std::string& backend, const tasks::Workload& w, int sets);

const tasks::HostTensor& input_named(const std::vector<tasks::HostTensor>& inputs, const std::string& name);

// The bytes of one set's tensors (inputs and outputs) in the shared memory.
std::vector<std::span<const char>> set_tensors(const char* shm, const StagingLayout& layout, int set);
// The range of the shared memory one set's tensors lie in: its first byte's offset and its length.
struct SetSpan {
  int64_t from = 0;
  size_t bytes = 0;
};
SetSpan set_span(const StagingLayout& layout, int set);

// The name of an output of one set that no longer holds the poison at some of `samples` positions drawn by `rng` in
// each output (spread over it), "" when none: read after `prepare`, an output written then was computed off the clock.
std::string output_written_early(const char* shm, const StagingLayout& layout, int set, size_t samples, std::mt19937_64& rng);
// Copies the inputs into one set and poisons its outputs.
void stage(char* shm, const StagingLayout& layout, int set, const std::vector<tasks::HostTensor>& inputs);
// Writes mix_inputs(a, b, seed) (tasks/inputs) into one set and poisons its outputs.
void stage_mix(char* shm, const StagingLayout& layout, int set, const std::vector<tasks::HostTensor>& a,
               const std::vector<tasks::HostTensor>& b, uint64_t seed);
// For runners that mix on their device (Backend::mixes_inputs_on_device): keeps the inputs of two staged
// sets there as the sources of later mixes, ...
nlohmann::json keep_mix_sources_command(const StagingLayout& layout, int set_a, int set_b);
// ... and a `prepare` of one set whose inputs the device makes mix_inputs(a, b, seed) of those sources
// (`a` gives the inputs' order) instead of uploading them.
nlohmann::json mixing_prepare_command(const StagingLayout& layout, int set, const std::vector<tasks::HostTensor>& a, uint64_t seed);

// A runner command (`call`, `prepare`, `timed_call`, `collect`, ...) on one staged set.
nlohmann::json staged_command(const StagingLayout& layout, int set, const std::string& cmd);

// Runs the loaded library once on a staged set; returns the runner's reply (with "ms").
nlohmann::json call_staged(runner::RunnerProcess& process, const StagingLayout& layout, int set,
                           std::chrono::milliseconds timeout);

}  // namespace ksearch::evaluator
