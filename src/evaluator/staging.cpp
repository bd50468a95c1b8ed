#include "evaluator/staging.hpp"

#include "evaluator/compare.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::tasks::CallArg;
using ksearch::tasks::HostTensor;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::call_layout;
using ksearch::tasks::element_count;
using ksearch::tasks::mix_tensor;
using ksearch::tasks::poison;
using ksearch::tasks::scalar_arguments;
using ksearch::tasks::tensor_seed;

namespace ksearch::evaluator {

namespace {
constexpr size_t kAlign = 256;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

nlohmann::json load_build(runner::RunnerProcess& process, Backend& backend, const Task& task, const BuildResult& build,
                          std::chrono::milliseconds timeout) {
  nlohmann::json load = {{"cmd", "load"}, {"artifact", build.artifact}};
  for (const auto& [k, v] : backend.load_options(task).items()) load["artifact"][k] = v;
  return process.request(load, timeout);
}

StagingLayout make_staging_layout(const Task& task, const std::string& backend, const Workload& w, int sets) {
  StagingLayout layout;
  layout.call = call_layout(task, backend);
  for (const auto& arg : layout.call.args) {
    if (arg.kind != CallArg::Kind::tensor) continue;
    auto shape = task.shape_of(*arg.tensor, w);
    layout.bytes.push_back(shape ? element_count(*shape) * dtype_size(arg.tensor->dtype) : 0);
    layout.row_lengths.push_back(row_length(shape));
    layout.is_output.push_back(arg.is_output);
    int output_index = -1;
    for (size_t i = 0; i < task.outputs.size(); ++i)
      if (arg.is_output && task.outputs[i].name == arg.name) output_index = int(i);
    layout.output_index.push_back(output_index);
    layout.dtypes.push_back(arg.tensor->dtype);
    layout.names.push_back(arg.name);
  }
  size_t cursor = 0;
  for (int s = 0; s < sets; ++s) {
    std::vector<int64_t> offsets;
    for (size_t i = 0; i < layout.bytes.size(); ++i) {
      const bool present = task.shape_of(*task.find_tensor(layout.names[i]), w).has_value();
      offsets.push_back(present ? int64_t(cursor) : -1);
      if (present) cursor += align_up(std::max<size_t>(layout.bytes[i], 1));
    }
    layout.offsets.push_back(offsets);
  }
  layout.total = cursor;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  scalar_arguments(task, layout.call, w, ints, floats);
  layout.command_base = {{"bytes", layout.bytes}, {"outputs", layout.is_output}, {"ints", ints}, {"floats", floats}};
  return layout;
}

namespace {
size_t input_index(const std::vector<HostTensor>& inputs, const std::string& name) {
  return size_t(std::find_if(inputs.begin(), inputs.end(), [&](const HostTensor& t) { return t.spec->name == name; }) -
                inputs.begin());
}

// The seed of a slot's tensor in a mix made with `seed`: mix_inputs seeds each input by its index in `a`.
uint64_t slot_mix_seed(const StagingLayout& layout, size_t slot, const std::vector<HostTensor>& a, uint64_t seed) {
  return tensor_seed(seed, input_index(a, layout.names[slot]));
}

// Poisons the outputs of one set and has `write_input(slot, destination)` fill each present input.
void stage_with(char* shm, const StagingLayout& layout, int set,
                const std::function<void(size_t slot, unsigned char* destination)>& write_input) {
  for (size_t slot = 0; slot < layout.names.size(); ++slot) {
    const int64_t offset = layout.offsets[size_t(set)][slot];
    if (offset < 0) continue;
    if (layout.is_output[slot]) {
      poison(shm + offset, layout.bytes[slot] / dtype_size(layout.dtypes[slot]), layout.dtypes[slot]);
    } else {
      write_input(slot, reinterpret_cast<unsigned char*>(shm + offset));
    }
  }
}
}  // namespace

std::string output_written_early(const char* shm, const StagingLayout& layout, int set, size_t samples, std::mt19937_64& rng) {
  for (size_t slot = 0; slot < layout.names.size(); ++slot) {
    const int64_t offset = layout.offsets[size_t(set)][slot];
    if (offset < 0 || !layout.is_output[slot]) continue;
    const size_t width = dtype_size(layout.dtypes[slot]), elements = layout.bytes[slot] / width;
    if (elements == 0) continue;
    const std::array<unsigned char, 16> pattern = tasks::poison_pattern(layout.dtypes[slot]);
    std::uniform_int_distribution<size_t> position(0, elements - 1);
    for (size_t i = 0; i < std::min(samples, elements); ++i)
      if (std::memcmp(shm + offset + position(rng) * width, pattern.data(), width) != 0) return layout.names[slot];
  }
  return "";
}

const HostTensor& input_named(const std::vector<HostTensor>& inputs, const std::string& name) {
  return inputs.at(input_index(inputs, name));
}

std::vector<std::span<const char>> set_tensors(const char* shm, const StagingLayout& layout, int set) {
  std::vector<std::span<const char>> tensors;
  for (size_t slot = 0; slot < layout.bytes.size(); ++slot)
    if (const int64_t offset = layout.offsets[size_t(set)][slot]; offset >= 0)
      tensors.emplace_back(shm + offset, layout.bytes[slot]);
  return tensors;
}

SetSpan set_span(const StagingLayout& layout, int set) {
  int64_t from = std::numeric_limits<int64_t>::max(), to = 0;
  for (size_t slot = 0; slot < layout.bytes.size(); ++slot)
    if (const int64_t offset = layout.offsets[size_t(set)][slot]; offset >= 0) {
      from = std::min(from, offset);
      to = std::max(to, offset + int64_t(layout.bytes[slot]));
    }
  return to > from ? SetSpan{from, size_t(to - from)} : SetSpan{};
}

void stage(char* shm, const StagingLayout& layout, int set, const std::vector<HostTensor>& inputs) {
  stage_with(shm, layout, set, [&](size_t slot, unsigned char* destination) {
    const HostTensor& t = input_named(inputs, layout.names[slot]);
    std::memcpy(destination, t.bytes.data(), t.bytes.size());
  });
}

void stage_mix(char* shm, const StagingLayout& layout, int set, const std::vector<HostTensor>& a,
               const std::vector<HostTensor>& b, uint64_t seed) {
  stage_with(shm, layout, set, [&](size_t slot, unsigned char* destination) {
    mix_tensor(input_named(a, layout.names[slot]), input_named(b, layout.names[slot]), slot_mix_seed(layout, slot, a, seed),
               destination);
  });
}

nlohmann::json keep_mix_sources_command(const StagingLayout& layout, int set_a, int set_b) {
  nlohmann::json command = staged_command(layout, set_a, "keep_mix_sources");
  command["set_b"] = layout.offsets[size_t(set_b)];
  return command;
}

nlohmann::json mixing_prepare_command(const StagingLayout& layout, int set, const std::vector<HostTensor>& a, uint64_t seed) {
  nlohmann::json command = staged_command(layout, set, "prepare");
  nlohmann::json mix = nlohmann::json::array();
  for (size_t slot = 0; slot < layout.names.size(); ++slot) {
    if (layout.is_output[slot] || layout.offsets[size_t(set)][slot] < 0) {
      mix.push_back(nullptr);
    } else {
      mix.push_back({{"seed", slot_mix_seed(layout, slot, a, seed)},
                     {"element_bytes", dtype_size(layout.dtypes[slot])}});
    }
  }
  command["mix"] = mix;
  return command;
}

nlohmann::json staged_command(const StagingLayout& layout, int set, const std::string& cmd) {
  nlohmann::json command = layout.command_base;
  command["cmd"] = cmd;
  command["set"] = layout.offsets[size_t(set)];
  return command;
}

nlohmann::json call_staged(runner::RunnerProcess& process, const StagingLayout& layout, int set,
                           std::chrono::milliseconds timeout) {
  return process.request(staged_command(layout, set, "call"), timeout);
}

}  // namespace ksearch::evaluator
