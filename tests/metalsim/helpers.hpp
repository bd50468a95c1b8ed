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

// Runs and fails the test with the diagnostics unless the run is clean.
inline RunResult run_ok(const std::string& so, const KernelSpec& s, std::vector<Buffer> in, std::vector<Buffer> out,
                        RunOptions o = {}) {
  RunResult r = run(so, s, in, out, o);
  EXPECT_TRUE(r.ok) << describe(r);
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
