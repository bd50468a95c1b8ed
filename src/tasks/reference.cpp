#include "tasks/reference.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

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
    throw Error(fmt::format("the reference of task '{}' ({}) does not define extern \"C\" void ks_reference(const ks_reference_args*)",
                            task.name, task.reference_source.string()));
  loaded[task.content_hash] = fn;
  return fn;
}

// What the reference's process reports at the start of the memory it shares with ksearch; the outputs follow.
struct ChildReport {
  enum State : int { unfinished, finished, threw };
  State state;
  char message[1024];  // what() of an exception it threw
};
constexpr size_t kReportBytes = 4096;  // a page: the outputs after it stay aligned
static_assert(sizeof(ChildReport) <= kReportBytes);

// Anonymous memory mapped before a fork: what the child writes there, the parent reads.
class SharedMemory {
 public:
  explicit SharedMemory(size_t bytes) : bytes_(bytes) {
    data_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (data_ == MAP_FAILED) throw SystemError("mmap of the reference's outputs", errno);
  }
  ~SharedMemory() { munmap(data_, bytes_); }
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  char* data() const { return static_cast<char*>(data_); }

 private:
  void* data_;
  size_t bytes_;
};

// Calls the reference in a child process and waits for it: it is the task author's code, and a crash, an exit() or
// an endless loop in it must end as an error that names it, not end or hang ksearch. Everything the child touches is
// made before the fork, so that it takes no lock another thread of ksearch held then (glibc's malloc, which the
// reference itself may use, is safe after a fork).
void call_in_child(const Task& task, const Workload& workload, ReferenceFn fn, const ks_reference_args& args,
                   ChildReport& report) {
  const auto fail = [&](const std::string& what) {
    throw ReferenceError(fmt::format("the reference of task '{}' {} on workload '{}'", task.name, what, workload.name));
  };
  report.state = ChildReport::unfinished;
  std::fflush(nullptr);  // a reference calling exit() flushes the stdio buffers it inherited: empty them first
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw SystemError("fork for the reference", errno);
  if (pid == 0) {
    // ksearch's Ctrl-C handlers are not the child's to run; a ksearch killed outright must not leave it running.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent) _exit(1);
    try {
      fn(&args);
      report.state = ChildReport::finished;
    } catch (const std::exception& e) {
      std::strncpy(report.message, e.what(), sizeof report.message - 1);
      report.state = ChildReport::threw;
    } catch (...) {
      std::strncpy(report.message, "an exception that is no std::exception", sizeof report.message - 1);
      report.state = ChildReport::threw;
    }
    _exit(0);
  }

  // Polled with a growing pause: small references end within a millisecond, long ones are checked every 20 ms.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(task.reference_timeout_s);
  auto pause = std::chrono::microseconds(50);
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw SystemError("waitpid for the reference", errno);
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      fail(fmt::format("did not finish within {} s (its [reference] timeout)", task.reference_timeout_s));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  if (WIFSIGNALED(status)) fail(fmt::format("crashed (signal {}, {})", WTERMSIG(status), strsignal(WTERMSIG(status))));
  if (report.state == ChildReport::threw)
    throw ReferenceError(
        fmt::format("the reference of task '{}' failed on workload '{}': {}", task.name, workload.name, report.message));
  if (report.state != ChildReport::finished)
    fail(fmt::format("ended the process (exit status {}) before returning", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

ReferenceOutputs compute(const Task& task, const Workload& workload, const std::vector<HostTensor>& inputs) {
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
  // The outputs live in memory shared with the reference's process, after its report.
  std::vector<std::optional<std::vector<int64_t>>> out_shapes;
  size_t shared_bytes = kReportBytes;
  for (const auto& output : task.outputs) {
    out_shapes.push_back(task.shape_of(output, workload));
    if (out_shapes.back()) shared_bytes += byte_count(*out_shapes.back(), DType::f64);
  }
  const SharedMemory shared(shared_bytes);
  std::vector<double*> out_values;
  std::vector<ks_tensor> out_tensors;
  for (size_t i = 0, offset = kReportBytes; i < task.outputs.size(); ++i) {
    double* values = nullptr;
    if (out_shapes[i]) {
      values = reinterpret_cast<double*>(shared.data() + offset);
      std::fill_n(values, element_count(*out_shapes[i]), std::nan(""));
      offset += byte_count(*out_shapes[i], DType::f64);
    }
    out_values.push_back(values);
    out_tensors.push_back({task.outputs[i].name.c_str(), values, out_shapes[i] ? out_shapes[i]->data() : nullptr,
                           out_shapes[i] ? int(out_shapes[i]->size()) : 0});
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
  call_in_child(task, workload, fn, args, *reinterpret_cast<ChildReport*>(shared.data()));
  ReferenceOutputs out(task.outputs.size());
  for (size_t i = 0; i < task.outputs.size(); ++i)
    if (out_values[i]) out[i].assign(out_values[i], out_values[i] + element_count(*out_shapes[i]));
  return out;
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

// The cached outputs, or nothing when the file is not one of this version or its lengths do not add up to its size
// (truncated or damaged: computed again, never a length trusted blindly).
std::optional<ReferenceOutputs> read_cached(const fs::path& file, size_t outputs) {
  std::error_code error;
  const uintmax_t file_size = fs::file_size(file, error);
  if (error) return std::nullopt;
  uintmax_t expected_size = 0;
  std::ifstream in(file, std::ios::binary);
  ReferenceOutputs out(outputs);
  for (auto& o : out) {
    uint64_t n = 0;
    char width = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || !in.read(&width, 1)) return std::nullopt;
    if ((width != 4 && width != 8) || n > (file_size - expected_size) / uint64_t(width)) return std::nullopt;
    expected_size += sizeof n + 1 + n * uint64_t(width);
    if (expected_size > file_size) return std::nullopt;
    o.resize(n);
    if (width == 8) {
      if (!in.read(reinterpret_cast<char*>(o.data()), std::streamsize(n * sizeof(double)))) return std::nullopt;
    } else {
      std::vector<float> narrow(n);
      if (!in.read(reinterpret_cast<char*>(narrow.data()), std::streamsize(n * sizeof(float)))) return std::nullopt;
      std::copy(narrow.begin(), narrow.end(), o.begin());
    }
  }
  if (expected_size != file_size) return std::nullopt;
  return out;
}

}  // namespace

void ensure_reference_built(const Task& task) { load_reference(task); }

ReferenceOutputs reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                   const std::vector<HostTensor>& inputs) {
  return cached_reference_outputs(task, workload, seed, [&] { return compute(task, workload, inputs); });
}

ReferenceOutputs fresh_reference_outputs(const Task& task, const Workload& workload, const std::vector<HostTensor>& inputs) {
  return compute(task, workload, inputs);
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
