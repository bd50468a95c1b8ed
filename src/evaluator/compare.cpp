#include "evaluator/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/parallel.hpp"

using ksearch::tasks::Tolerance;

namespace ksearch::evaluator {

namespace {

// Elements per chunk of the parallel passes: large enough that a chunk's bookkeeping is negligible.
constexpr size_t kCompareChunk = size_t(1) << 16;
constexpr size_t kNone = std::numeric_limits<size_t>::max();
// Outputs this large are held to an average error (compare_output); a few elements are not.
constexpr size_t kMinElementsForAverageError = 256;

// An output element as compared. A bool is its raw byte: any byte but 0 converts to true, so the poison
// of an element the candidate never wrote (0xA5) would pass wherever the reference is true.
double output_value(const void* output, size_t i, DType dtype) {
  return dtype == DType::boolean ? double(static_cast<const unsigned char*>(output)[i]) : load_as_double(output, i, dtype);
}

// What the elementwise pass found in some range of elements: ranges merge in any order, but for the sum of squares,
// which compare_output merges in the ranges' order (the same figure every run).
struct ElementStats {
  double out_min = INFINITY, out_max = -INFINITY, ref_min = INFINITY, ref_max = -INFINITY;
  double max_abs_err = 0, max_rel_err = 0;
  size_t mismatches = 0;
  size_t first_bad = kNone;
  // Over the elements whose tolerance is relative (rtol |r| at least atol), each one's error squared in units of its
  // elementwise tolerance (atol + rtol |r|), summed, and how many there are.
  double units_sq = 0;
  size_t relative_elements = 0;

  void merge(const ElementStats& o) {
    out_min = std::min(out_min, o.out_min);
    out_max = std::max(out_max, o.out_max);
    ref_min = std::min(ref_min, o.ref_min);
    ref_max = std::max(ref_max, o.ref_max);
    max_abs_err = std::max(max_abs_err, o.max_abs_err);
    max_rel_err = std::max(max_rel_err, o.max_rel_err);
    mismatches += o.mismatches;
    first_bad = std::min(first_bad, o.first_bad);
    units_sq += o.units_sq;
    relative_elements += o.relative_elements;
  }
};

ElementStats compare_elements(const void* output, DType dtype, const std::vector<double>& reference, const Tolerance& tolerance,
                              size_t begin, size_t end) {
  ElementStats s;
  for (size_t i = begin; i < end; ++i) {
    const double o = output_value(output, i, dtype);
    const double r = reference[i];
    s.ref_min = std::min(s.ref_min, r);
    s.ref_max = std::max(s.ref_max, r);
    s.out_min = std::min(s.out_min, o);
    s.out_max = std::max(s.out_max, o);
    const double err = std::abs(o - r), bound = tolerance.atol + tolerance.rtol * std::abs(r);
    // A non-finite output passes only as the reference's own infinity, of its sign; NaN never does.
    const bool bad = !std::isfinite(o) ? std::isnan(o) || o != r : !(err <= bound);
    if (std::isfinite(r) && tolerance.rtol * std::abs(r) >= tolerance.atol) {
      ++s.relative_elements;
      if (bound > 0) s.units_sq += (err / bound) * (err / bound);
    }
    if (std::isfinite(err)) {
      s.max_abs_err = std::max(s.max_abs_err, err);
      s.max_rel_err = std::max(s.max_rel_err, err / std::max(std::abs(r), tolerance.atol > 0 ? tolerance.atol : 1e-30));
    } else if (bad) {
      s.max_abs_err = s.max_rel_err = INFINITY;
    }
    if (bad) {
      ++s.mismatches;
      s.first_bad = std::min(s.first_bad, i);
    }
  }
  return s;
}

// Relative L2 error of one row and its bound: sqrt(sum e^2) <= norm_rtol * sqrt(sum r^2) + atol * sqrt(n).
struct RowError {
  double error = 0, reference_norm = 0, bound = 0;
};

RowError row_error(const void* output, DType dtype, const std::vector<double>& reference, const Tolerance& tolerance, size_t begin,
                   size_t end) {
  double error_sq = 0, reference_sq = 0;
  for (size_t i = begin; i < end; ++i) {
    const double r = reference[i], e = output_value(output, i, dtype) - r;
    if (!std::isfinite(r)) continue;  // the elementwise check already required the same non-finite value
    error_sq += e * e;
    reference_sq += r * r;
  }
  RowError row{std::sqrt(error_sq), std::sqrt(reference_sq), 0};
  row.bound = tolerance.row_norm_rtol() * row.reference_norm + tolerance.atol * std::sqrt(double(end - begin));
  return row;
}

}  // namespace

size_t row_length(const std::optional<std::vector<int64_t>>& shape) {
  return shape && !shape->empty() ? size_t(std::max<int64_t>(shape->back(), 1)) : 1;
}

Comparison compare_output(const std::string& name, const void* output, DType dtype, const std::vector<double>& reference,
                          const Tolerance& tolerance, size_t row_length) {
  Comparison c;
  const size_t n = reference.size();
  std::vector<ElementStats> chunks((n + kCompareChunk - 1) / kCompareChunk);
  for_each_chunk(n, kCompareChunk, [&](size_t chunk, size_t begin, size_t end) {
    chunks[chunk] = compare_elements(output, dtype, reference, tolerance, begin, end);
  });
  ElementStats all;
  for (const ElementStats& chunk : chunks) all.merge(chunk);
  c.max_abs_err = all.max_abs_err;
  c.max_rel_err = all.max_rel_err;
  c.mismatches = all.mismatches;
  if (c.mismatches) {
    const size_t i = all.first_bad;
    c.ok = false;
    c.message = fmt::format("output '{}' element {}: got {}, expected {} (tolerance {} + {}*|expected|); {} of {} elements wrong",
                            name, i, output_value(output, i, dtype), reference[i], tolerance.atol, tolerance.rtol,
                            c.mismatches, n);
    return c;
  }
  // A constant output (all zeros, say) can sit inside the absolute tolerance when the reference values are
  // tiny; it is never right when the reference itself is not constant.
  const double spread = all.ref_max - all.ref_min;
  if (n > 1 && all.out_min == all.out_max && spread > 1e-9 * std::max(std::abs(all.ref_min), std::abs(all.ref_max))) {
    c.ok = false;
    c.message = fmt::format("output '{}' is constant ({}) while the reference varies from {} to {}", name, all.out_min,
                            all.ref_min, all.ref_max);
    return c;
  }
  row_length = std::max<size_t>(1, std::min(row_length, n));
  const size_t rows = (n + row_length - 1) / row_length;
  size_t bad_rows = 0, first_bad_row = kNone;
  std::mutex merging;
  for_each_chunk(rows, std::max<size_t>(1, kCompareChunk / row_length), [&](size_t, size_t row_begin, size_t row_end) {
    size_t bad = 0, first = kNone;
    for (size_t row = row_begin; row < row_end; ++row) {
      const RowError e = row_error(output, dtype, reference, tolerance, row * row_length, std::min(n, (row + 1) * row_length));
      if (e.error > e.bound && bad++ == 0) first = row;
    }
    const std::lock_guard lock(merging);
    bad_rows += bad;
    first_bad_row = std::min(first_bad_row, first);
  });
  if (bad_rows) {
    const size_t begin = first_bad_row * row_length, end = std::min(n, begin + row_length);
    const RowError e = row_error(output, dtype, reference, tolerance, begin, end);
    c.ok = false;
    c.message = fmt::format("output '{}' row {} (elements {}..{}): relative L2 error {:.3g} exceeds the norm-wise tolerance {:.3g} "
                            "(each element was within the elementwise one: a lower precision than the task's?); {} of {} rows",
                            name, first_bad_row, begin, end - 1, e.error / std::max(e.reference_norm, 1e-300),
                            tolerance.row_norm_rtol(), bad_rows, rows);
    return c;
  }
  // The norm-wise bound weighs elements by their size: rounding only the small ones (most of a softmax row, say) to a
  // lower precision, just inside the elementwise tolerance, leaves it alone. Each element's error in units of its own
  // tolerance, averaged (RMS) over the elements whose tolerance is relative, is held to the same fraction
  // norm_rtol / rtol (a quarter by default). For float and double outputs (a 16-bit output's own rounding takes a
  // share of its tolerance that its task sets), of enough elements (a scalar's one error may take its whole tolerance).
  if (dtype_is_float(dtype) && dtype_size(dtype) >= 4 && n >= kMinElementsForAverageError && tolerance.rtol > 0) {
    const double average = all.relative_elements ? std::sqrt(all.units_sq / double(all.relative_elements)) : 0.0;
    const double limit = tolerance.row_norm_rtol() / tolerance.rtol;
    if (all.relative_elements >= kMinElementsForAverageError && average > limit) {
      c.ok = false;
      c.message = fmt::format("output '{}': its elements' errors average (RMS) {:.3g} of their elementwise tolerances, above "
                              "{:.3g} (each element was within its tolerance: a lower precision than the task's on most "
                              "of them?)",
                              name, average, limit);
    }
  }
  return c;
}

}  // namespace ksearch::evaluator
