#include "tasks/reference.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "core/build_cache.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "ksearch/reference.h"

namespace fs = std::filesystem;

namespace ksearch {

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
      for (size_t e = 0; e < t.elements(); ++e) in_data[i][e] = load_as_double(t.bytes.data(), e, t.spec->dtype);
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

}  // namespace

void ensure_reference_built(const Task& task) { load_reference(task); }

ReferenceOutputs reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                   const std::vector<HostTensor>& inputs) {
  return cached_reference_outputs(task, workload, seed, "", [&] { return compute(task, workload, inputs); });
}

ReferenceOutputs cached_reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                          const std::string& origin, const std::function<ReferenceOutputs()>& compute) {
  std::string axes;
  for (const auto& [k, v] : task.bindings(workload)) axes += fmt::format("{}={};", k, v);
  std::string material =
      fmt::format("{}|{}|{}|{}|inputs v{}", task.content_hash, workload.name, axes, seed, kInputGeneratorVersion);
  if (!origin.empty()) material += "|" + origin;
  const std::string key = sha256_hex(material).substr(0, 32);
  const fs::path file = cache_subdir("references/" + task.name) / (key + ".bin");

  if (fs::exists(file)) {
    std::ifstream in(file, std::ios::binary);
    ReferenceOutputs out(task.outputs.size());
    bool ok = true;
    for (auto& o : out) {
      uint64_t n = 0;
      ok = ok && bool(in.read(reinterpret_cast<char*>(&n), sizeof n));
      o.resize(n);
      ok = ok && bool(in.read(reinterpret_cast<char*>(o.data()), std::streamsize(n * sizeof(double))));
    }
    if (ok) return out;
  }
  ReferenceOutputs out = compute();
  std::string blob;
  for (const auto& o : out) {
    const uint64_t n = o.size();
    blob.append(reinterpret_cast<const char*>(&n), sizeof n);
    blob.append(reinterpret_cast<const char*>(o.data()), n * sizeof(double));
  }
  write_file_atomic(file, blob);
  return out;
}

}  // namespace ksearch
