#include "tasks/inputs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/parallel.hpp"

namespace ksearch::tasks {

namespace {

// Elements drawn from one independently seeded stream. Fixed, so the values of a seed do not depend
// on how many threads draw them.
constexpr size_t kChunkElements = size_t(1) << 18;

template <typename Element>
void mix_elements(const Element* a, const Element* b, const MixPlan& plan, size_t begin, size_t end, Element* out) {
  for (size_t block = begin; block < end; block += 64) {
    const uint64_t bits = plan.block_bits(block / 64);
    const size_t block_end = std::min(end, block + 64);
    for (size_t i = block; i < block_end; ++i) out[i] = (bits >> (i - block)) & 1 ? a[plan.from_a(i)] : b[plan.from_b(i)];
  }
}

void fill_chunk(HostTensor& t, const Distribution& d, uint64_t seed, size_t begin, size_t end) {
  std::mt19937_64 rng(seed);
  void* data = t.bytes.data();
  if (d.kind == "normal") {
    std::normal_distribution<double> dist(d.a, d.b);
    for (size_t i = begin; i < end; ++i) store_from_double(data, i, t.spec->dtype, dist(rng));
  } else if (d.kind == "uniform") {
    std::uniform_real_distribution<double> dist(d.a, d.b);
    for (size_t i = begin; i < end; ++i) store_from_double(data, i, t.spec->dtype, dist(rng));
  } else if (d.kind == "log_uniform" || d.kind == "neg_log_uniform") {
    std::uniform_real_distribution<double> dist(std::log(d.a), std::log(d.b));
    const double sign = d.kind == "neg_log_uniform" ? -1.0 : 1.0;
    for (size_t i = begin; i < end; ++i) store_from_double(data, i, t.spec->dtype, sign * std::exp(dist(rng)));
  } else {  // randint, inclusive bounds
    std::uniform_int_distribution<int64_t> dist(int64_t(d.a), int64_t(d.b));
    for (size_t i = begin; i < end; ++i) store_from_double(data, i, t.spec->dtype, double(dist(rng)));
  }
}

void fill(HostTensor& t, const Distribution& d, uint64_t seed) {
  for_each_chunk(t.elements(), kChunkElements, [&](size_t chunk, size_t begin, size_t end) { fill_chunk(t, d, tensor_seed(seed, chunk), begin, end); });
}

}  // namespace

std::vector<HostTensor> generate_inputs(const Task& task, const Workload& workload, uint64_t seed) {
  std::vector<HostTensor> inputs;
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32)};
  std::vector<uint64_t> tensor_seeds(task.inputs.size());
  {
    std::vector<uint32_t> raw(task.inputs.size() * 2);
    seq.generate(raw.begin(), raw.end());
    for (size_t i = 0; i < tensor_seeds.size(); ++i) tensor_seeds[i] = (uint64_t(raw[2 * i]) << 32) | raw[2 * i + 1];
  }
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    HostTensor t;
    t.spec = &task.inputs[i];
    auto shape = task.shape_of(task.inputs[i], workload);
    t.present = shape.has_value();
    if (t.present) {
      t.shape = *shape;
      t.bytes.resize(byte_count(t.shape, t.spec->dtype));
      fill(t, task.dist_for(task.inputs[i], workload), tensor_seeds[i]);
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

void mix_tensor(const HostTensor& a, const HostTensor& b, uint64_t seed, unsigned char* out) {
  if (a.elements() == 0) return;
  const MixPlan plan = mix_plan(seed, a.elements());
  auto mix = [&](auto element) {
    using Element = decltype(element);
    for_each_chunk(plan.n, kChunkElements, [&](size_t, size_t begin, size_t end) {
      mix_elements(reinterpret_cast<const Element*>(a.bytes.data()), reinterpret_cast<const Element*>(b.bytes.data()), plan,
                   begin, end, reinterpret_cast<Element*>(out));
    });
  };
  switch (dtype_size(a.spec->dtype)) {
    case 1: return mix(uint8_t{});
    case 2: return mix(uint16_t{});
    case 4: return mix(uint32_t{});
    default: return mix(uint64_t{});
  }
}

std::vector<HostTensor> mix_inputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b, uint64_t seed) {
  std::vector<HostTensor> mixed = a;
  for (size_t i = 0; i < mixed.size(); ++i)
    if (mixed[i].present) mix_tensor(a[i], b[i], tensor_seed(seed, i), mixed[i].bytes.data());
  return mixed;
}

std::array<unsigned char, 16> poison_pattern(DType dtype) {
  std::array<unsigned char, 16> pattern{};
  if (dtype_is_float(dtype)) {
    store_from_double(pattern.data(), 0, dtype, std::numeric_limits<double>::quiet_NaN());
  } else {
    std::memset(pattern.data(), 0xA5, dtype_size(dtype));  // an unlikely bit pattern for integer results
  }
  return pattern;
}

void poison(void* data, size_t elements, DType dtype) {
  // One poisoned element, copied over all of them on every core.
  const std::array<unsigned char, 16> pattern = poison_pattern(dtype);
  const size_t width = dtype_size(dtype);
  auto* bytes = static_cast<unsigned char*>(data);
  for_each_chunk(elements, kChunkElements, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) std::memcpy(bytes + i * width, pattern.data(), width);
  });
}

}  // namespace ksearch::tasks
