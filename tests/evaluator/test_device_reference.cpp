// Device references (`[reference.<backend>]`), exercised with the cpu backend on saxpy_device: its
// device reference is the seed's own float code, its CPU reference computes in double.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/device_reference.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/reference.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::DeviceReference;
using ksearch::evaluator::DeviceReferenceVerification;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadResult;
using ksearch::evaluator::verification_marker;
using ksearch::tasks::DeviceReferenceSpec;
using ksearch::tasks::ReferenceOutputs;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::cached_reference_outputs;
using ksearch::tasks::load_task;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

const fs::path kTaskDir = fs::path(KSEARCH_TEST_DATA) / "tasks/saxpy_device";

EvalOptions untimed() {
  EvalOptions o;
  o.time = false;
  o.call_timeout = std::chrono::seconds(20);
  return o;
}

const WorkloadResult& result_of(const EvalReport& r, const std::string& name) {
  return *std::find_if(r.workloads.begin(), r.workloads.end(), [&](const WorkloadResult& w) { return w.name == name; });
}

// saxpy_device in a folder of its own whose device reference adds 0.1% of w too much.
Task task_with_wrong_device_reference() {
  const fs::path dir = fs::temp_directory_path() / ("ksearch-wrong-device-reference-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string seed = read_file(kTaskDir / "../saxpy/seeds/cpu.cpp");
  seed.replace(seed.find("+ w[i]"), 6, "+ 1.001f * w[i]");
  std::ofstream(dir / "wrong.cpp") << seed;
  std::string toml = read_file(kTaskDir / "task.toml");
  const std::string device_source = "source = \"../saxpy/seeds/cpu.cpp\"";
  toml.replace(toml.find(device_source), device_source.size(), "source = \"wrong.cpp\"");
  const std::string saxpy = "\"" + (kTaskDir / "../saxpy").lexically_normal().string() + "/";
  for (size_t pos; (pos = toml.find("\"../saxpy/")) != std::string::npos;) toml.replace(pos, 10, saxpy);
  std::ofstream(dir / "task.toml") << toml;
  return load_task(dir / "task.toml");
}

// A cache folder of its own for the test's lifetime: other tests write references of the same task concurrently.
class PrivateCache {
 public:
  PrivateCache() : previous_(std::getenv("KSEARCH_CACHE_DIR") ? std::getenv("KSEARCH_CACHE_DIR") : "") {
    fs::remove_all(dir_);
    setenv("KSEARCH_CACHE_DIR", dir_.c_str(), 1);
  }
  ~PrivateCache() {
    setenv("KSEARCH_CACHE_DIR", previous_.c_str(), 1);
    fs::remove_all(dir_);
  }

 private:
  const fs::path dir_ = fs::temp_directory_path() / fmt::format("ksearch-cache-test-{}", getpid());
  const std::string previous_;
};

}  // namespace

TEST(DeviceReference, WorkloadsAboveTheThresholdAreCheckedAgainstIt) {
  const Task task = load_task(kTaskDir / "task.toml");
  auto backend = make_backend("cpu");
  const EvalReport r = Evaluator(task, *backend, untimed()).evaluate(read_file(task.entry("cpu").seed));
  ASSERT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
  // The seed against the double-precision CPU reference: float rounding shows.
  EXPECT_EQ(result_of(r, "n100k").reference, "cpu");
  EXPECT_GT(result_of(r, "n100k").max_abs_err, 0);
  // The seed against the device reference, which is the seed itself: identical, bit for bit.
  EXPECT_EQ(result_of(r, "n1m_alpha").reference, "device");
  EXPECT_EQ(result_of(r, "n1m_alpha").max_abs_err, 0);
  EXPECT_EQ(result_of(r, "held_n12345").reference, "cpu");
  EXPECT_EQ(EvalReport::from_json(r.to_json()).workloads[1].reference, "device");
}

TEST(DeviceReference, DisagreementWithTheCpuReferenceIsAnEvaluationError) {
  const Task task = task_with_wrong_device_reference();
  auto backend = make_backend("cpu");
  const EvalReport r = Evaluator(task, *backend, untimed()).evaluate(read_file(task.entry("cpu").seed));
  EXPECT_EQ(result_of(r, "n100k").status, Status::passed);  // checked against the CPU reference
  const WorkloadResult& large = result_of(r, "n1m_alpha");
  EXPECT_EQ(large.status, Status::runtime_error);
  for (const char* part : {"evaluation error", "cpu device reference", "wrong.cpp",
                           "disagrees with the CPU reference on workload 'n100k'", "max abs err", "not trusted"})
    EXPECT_NE(large.message.find(part), std::string::npos) << part << " in: " << large.message;
  EXPECT_NE(r.message.find("workload n1m_alpha"), std::string::npos) << r.message;
  EXPECT_FALSE(fs::exists(verification_marker(task, task.device_references.at("cpu"))));
  DeviceReference reference(task, *backend, task.device_references.at("cpu"));
  EXPECT_THROW(reference.verify(), Error);
}

TEST(DeviceReference, VerificationIsRecordedAndReused) {
  const Task task = load_task(kTaskDir / "task.toml");
  const DeviceReferenceSpec& spec = task.device_references.at("cpu");
  const fs::path marker = verification_marker(task, spec);
  fs::remove(marker);
  auto backend = make_backend("cpu");

  DeviceReference first(task, *backend, spec);
  const DeviceReferenceVerification ran = first.verify();
  EXPECT_FALSE(ran.from_marker);
  ASSERT_EQ(ran.checks.size(), 1u);  // the one visible workload below the threshold
  EXPECT_EQ(ran.checks[0].workload, "n100k");
  EXPECT_GT(ran.checks[0].max_abs_err, 0);
  EXPECT_LT(ran.checks[0].max_abs_err, 1e-6);
  ASSERT_TRUE(fs::exists(marker));

  // A later use reads the marker instead of verifying again: a value planted in it comes back.
  auto record = nlohmann::json::parse(read_file(marker));
  record["checks"][0]["max_abs_err"] = 123.0;
  write_file_atomic(marker, record.dump());
  DeviceReference second(task, *backend, spec);
  const DeviceReferenceVerification reused = second.verify();
  EXPECT_TRUE(reused.from_marker);
  ASSERT_EQ(reused.checks.size(), 1u);
  EXPECT_EQ(reused.checks[0].max_abs_err, 123.0);
  fs::remove(marker);
}

// Cached references keep every value exactly; outputs whose values are all floats (e.g. fp32 results)
// are stored at half the size of doubles.
TEST(ReferenceCache, RoundTripsExactlyAndStoresFloatValuesAsFloats) {
  const Task task = load_task(kTaskDir / "task.toml");
  const Workload& w = task.workloads.front();
  const std::vector<double> floats = {1.5, -0.25, 3.0e-8f, std::nan("")}, doubles = {0.1, 1.0 / 3.0, 2.0, -7.0};
  int computed = 0;
  auto cache = [&](uint64_t seed, const std::vector<double>& values) {
    return cached_reference_outputs(task, w, seed, [&] {
      ++computed;
      return ReferenceOutputs{values};
    });
  };
  const PrivateCache private_cache;
  const fs::path dir = cache_subdir("references/" + task.name);
  for (const auto& [seed, values] : {std::pair{uint64_t(1), floats}, std::pair{uint64_t(2), doubles}}) {
    cache(seed, values);
    const ReferenceOutputs again = cache(seed, values);  // from the file this time
    ASSERT_EQ(again.size(), 1u);
    ASSERT_EQ(again[0].size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) EXPECT_TRUE(std::isnan(again[0][i]));
      else EXPECT_EQ(again[0][i], values[i]) << "seed " << seed << " value " << i;
    }
  }
  EXPECT_EQ(computed, 2);
  std::vector<uintmax_t> sizes;
  for (const auto& entry : fs::directory_iterator(dir)) sizes.push_back(entry.file_size());
  std::sort(sizes.begin(), sizes.end());
  const uintmax_t header = sizeof(uint64_t) + 1;
  EXPECT_EQ(sizes, (std::vector<uintmax_t>{header + 4 * sizeof(float), header + 4 * sizeof(double)}));
  // The same task with an input drawn from another distribution (changed in memory, as a test may) has inputs of
  // its own, so its references are computed, not read from the file's.
  Task wider = task;
  wider.inputs.front().dist.b *= 8;
  EXPECT_EQ(cached_reference_outputs(wider, w, 1, [&] {
              ++computed;
              return ReferenceOutputs{doubles};
            })[0],
            doubles);
  EXPECT_EQ(computed, 3);
}

// A damaged cache file (a length beyond its size, a bad width, a truncated tail, bytes left over) is computed again:
// no length read from it is trusted before the file's size confirms it.
TEST(ReferenceCache, DamagedFilesAreComputedAgain) {
  const Task task = load_task(kTaskDir / "task.toml");
  const Workload& w = task.workloads.front();
  const std::vector<double> values = {0.1, 1.0 / 3.0, -2.0};
  int computed = 0;
  const auto cache = [&] {
    return cached_reference_outputs(task, w, 1, [&] {
      ++computed;
      return ReferenceOutputs{values};
    })[0];
  };
  const PrivateCache private_cache;
  cache();
  const fs::path file = fs::directory_iterator(cache_subdir("references/" + task.name))->path();
  const std::string good = read_file(file);
  std::string too_long = good, bad_width = good;
  const uint64_t huge = uint64_t(1) << 60;
  std::memcpy(too_long.data(), &huge, sizeof huge);
  bad_width[sizeof huge] = 3;
  const std::vector<std::string> damaged = {too_long, bad_width, good.substr(0, good.size() - 1), good + "x", good.substr(0, 4), ""};
  for (const std::string& contents : damaged) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << contents;
    EXPECT_EQ(cache(), values);
    EXPECT_EQ(read_file(file), good);  // written again
  }
  EXPECT_EQ(computed, 1 + int(damaged.size()));
  EXPECT_EQ(cache(), values);
  EXPECT_EQ(computed, 1 + int(damaged.size()));
}
