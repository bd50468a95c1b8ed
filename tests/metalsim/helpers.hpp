// Shared helpers for the metalsim tests: compile into the build tree's cache,
// run with typed host vectors.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "metalsim/metalsim.hpp"

namespace mstest {

using namespace ksearch::metalsim;

inline std::string corpus(const std::string& file) {
  std::ifstream f(std::string(METALSIM_CORPUS_DIR) + "/" + file);
  std::stringstream s;
  s << f.rdbuf();
  if (!f) ADD_FAILURE() << "missing corpus file " << file;
  return s.str();
}

inline CompileOptions copts() {
  CompileOptions o;
  o.cache_dir = METALSIM_TEST_CACHE;
  return o;
}

// Compiles or fails the test with the compiler's messages.
inline std::string build(const KernelSpec& spec) {
  CompileResult c = compile(spec, copts());
  EXPECT_TRUE(c.ok) << c.log;
  return c.ok ? c.so_path.string() : std::string();
}

template <class T> Buffer buf(const TensorSpec& t, std::vector<T>& v) {
  return Buffer{t.name, t.dtype, t.shape, v.data(), v.size() * sizeof(T)};
}

inline std::string describe(const RunResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += std::string(diagnostic_kind_name(d.kind)) + ": " + d.message + "\n";
  return s;
}

// Runs under every schedule, the in-order one last (its outputs are what the test checks), each from the outputs'
// bytes before the runs, and fails the test with the diagnostics unless every run is clean and leaves the same bytes.
inline RunResult run_ok(const std::string& so, const KernelSpec& s, std::vector<Buffer> in, std::vector<Buffer> out,
                        RunOptions o = {}) {
  auto bytes_of = [&] {
    std::vector<std::vector<unsigned char>> v;
    for (const auto& b : out) v.emplace_back(static_cast<unsigned char*>(b.data), static_cast<unsigned char*>(b.data) + b.bytes);
    return v;
  };
  const auto before = bytes_of();
  std::vector<std::vector<unsigned char>> first;
  RunResult r;
  for (Schedule schedule : {Schedule::reversed, Schedule::atomic_lockstep, Schedule::in_order}) {
    for (std::size_t i = 0; i < out.size(); ++i) std::memcpy(out[i].data, before[i].data(), before[i].size());
    o.schedule = schedule;
    r = run(so, s, in, out, o);
    EXPECT_TRUE(r.ok) << schedule_name(schedule) << " schedule: " << describe(r);
    if (first.empty()) first = bytes_of();
    else EXPECT_TRUE(bytes_of() == first) << "outputs under the " << schedule_name(schedule) << " schedule differ from the reversed one's";
  }
  return r;
}

// fp16 round to nearest even, as Metal's half conversions.
inline float half_round(float f) { return static_cast<float>(static_cast<_Float16>(f)); }

inline bool has_kind(const RunResult& r, DiagnosticKind k) {
  for (const auto& d : r.diagnostics)
    if (d.kind == k) return true;
  return false;
}

inline TensorSpec tensor(std::string name, Dtype d, std::vector<int64_t> shape) {
  return TensorSpec{std::move(name), d, std::move(shape)};
}

}  // namespace mstest
