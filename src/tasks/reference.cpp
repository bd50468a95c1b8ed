#include "tasks/reference.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#include "core/build_cache.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "ksearch/reference.h"

namespace fs = std::filesystem;

namespace ksearch::tasks {

namespace {

using ReferenceFn = void (*)(const ks_reference_args*);

ReferenceFn load_reference(const Task& task) {
  static std::mutex mutex;
  static std::map<std::string, ReferenceFn> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(task.content_hash); it != loaded.end()) return it->second;
  BuildRequest request;
  request.kind = "reference";
  request.files = {{"reference.cpp", read_file(task.reference_source)}};
  request.command = {"g++", "-std=c++20", "-O2", "-fopenmp", "-fPIC", "-shared", "-I" + include_dir().string(),
                     "reference.cpp", "-o", "{out}"};
  BuildOutcome built = build_cached(request);
  if (!built.ok)
    throw Error(fmt::format("the reference of task '{}' ({}) does not compile:\n{}", task.name,
                            task.reference_source.string(), built.log));
  void* handle = dlopen(built.artifact.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error(fmt::format("cannot load the reference of task '{}': {}", task.name, dlerror()));
  auto fn = reinterpret_cast<ReferenceFn>(dlsym(handle, "ks_reference"));
  if (!fn)
    throw Error(fmt::format("the reference of task '{}' does not define extern \"C\" ks_reference()", task.name));
  loaded[task.content_hash] = fn;
  return fn;
}

ReferenceOutputs compute(const Task& task, const Workload& workload,
                                         const std::vector<HostTensor>& inputs) {
  ReferenceFn fn = load_reference(task);
  std::vector<std::vector<double>> in_data(inputs.size());
  std::vector<ks_tensor> in_tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor& t = inputs[i];
    if (t.present) {
      in_data[i].resize(t.elements());
      for_each_chunk(t.elements(), size_t(1) << 18, [&](size_t, size_t begin, size_t end) {
        for (size_t e = begin; e < end; ++e) in_data[i][e] = load_as_double(t.bytes.data(), e, t.spec->dtype);
      });
    }
    in_tensors.push_back({t.spec->name.c_str(), t.present ? in_data[i].data() : nullptr, t.shape.data(), int(t.shape.size())});
  }
  std::vector<std::vector<double>> out_data(task.outputs.size());
  std::vector<std::vector<int64_t>> out_shapes(task.outputs.size());
  std::vector<ks_tensor> out_tensors;
  for (size_t i = 0; i < task.outputs.size(); ++i) {
    auto shape = task.shape_of(task.outputs[i], workload);
    if (shape) {
      out_shapes[i] = *shape;
      out_data[i].assign(element_count(*shape), std::nan(""));
    }
    out_tensors.push_back({task.outputs[i].name.c_str(), shape ? out_data[i].data() : nullptr, out_shapes[i].data(),
                           int(out_shapes[i].size())});
  }
  const auto values = task.bindings(workload);
  std::vector<const char*> names;
  std::vector<double> numbers;
  for (const auto& [k, v] : values) {
    names.push_back(k.c_str());
    numbers.push_back(v);
  }
  ks_reference_args args{int(in_tensors.size()), in_tensors.data(), int(out_tensors.size()), out_tensors.data(),
                         int(names.size()), names.data(), numbers.data()};
  try {
    fn(&args);
  } catch (const std::exception& e) {
    throw Error(fmt::format("the reference of task '{}' failed on workload '{}': {}", task.name, workload.name, e.what()));
  }
  return out_data;
}

// Cache files: per output, its element count, a width byte (4: stored as float, 8: as double) and the
// values. Outputs whose values are all floats (a device reference's fp32 or bf16 results) take half
// the space: GPU-sized outputs are hundreds of megabytes per seed.
constexpr int kCacheFileVersion = 2;

bool exact_in_float(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isnan(v) || double(float(v)) == v; });
}

std::string cache_blob(const ReferenceOutputs& outputs) {
  std::string blob;
  for (const auto& o : outputs) {
    const uint64_t n = o.size();
    const char width = exact_in_float(o) ? 4 : 8;
    blob.append(reinterpret_cast<const char*>(&n), sizeof n);
    blob.push_back(width);
    if (width == 8) {
      blob.append(reinterpret_cast<const char*>(o.data()), n * sizeof(double));
    } else {
      const std::vector<float> narrow(o.begin(), o.end());
      blob.append(reinterpret_cast<const char*>(narrow.data()), n * sizeof(float));
    }
  }
  return blob;
}

std::optional<ReferenceOutputs> read_cached(const fs::path& file, size_t outputs) {
  std::ifstream in(file, std::ios::binary);
  ReferenceOutputs out(outputs);
  for (auto& o : out) {
    uint64_t n = 0;
    char width = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || !in.read(&width, 1)) return std::nullopt;
    o.resize(n);
    if (width == 8) {
      if (!in.read(reinterpret_cast<char*>(o.data()), std::streamsize(n * sizeof(double)))) return std::nullopt;
    } else if (width == 4) {
      std::vector<float> narrow(n);
      if (!in.read(reinterpret_cast<char*>(narrow.data()), std::streamsize(n * sizeof(float)))) return std::nullopt;
      std::copy(narrow.begin(), narrow.end(), o.begin());
    } else {
      return std::nullopt;  // not a file of this version: computed again
    }
  }
  return out;
}

}  // namespace

void ensure_reference_built(const Task& task) { load_reference(task); }

ReferenceOutputs reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                   const std::vector<HostTensor>& inputs) {
  return cached_reference_outputs(task, workload, seed, [&] { return compute(task, workload, inputs); });
}

ReferenceOutputs cached_reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                          const std::function<ReferenceOutputs()>& compute) {
  const std::string material =
      fmt::format("{}|{}|{}|{}|inputs v{}|file v{}", task.content_hash, workload.name, task.generation_spec(workload), seed,
                  kInputGeneratorVersion, kCacheFileVersion);
  const std::string key = sha256_hex(material).substr(0, 32);
  const fs::path file = cache_subdir("references/" + task.name) / (key + ".bin");

  if (fs::exists(file))
    if (auto cached = read_cached(file, task.outputs.size())) return *cached;
  ReferenceOutputs out = compute();
  write_file_atomic(file, cache_blob(out));
  return out;
}

}  // namespace ksearch::tasks
