#pragma once
// core/stats: summaries of timing samples (median, percentiles) and the means speedups are
// averaged with.
#include <vector>

namespace ksearch {

struct TimingSummary {
  double median = 0;
  double p10 = 0, p90 = 0;
  double min = 0, max = 0;
  int samples = 0;
  // Relative spread: (p90 - p10) / median. Reported next to every median.
  double spread() const { return median > 0 ? (p90 - p10) / median : 0; }
};

TimingSummary summarize(std::vector<double> samples);
double geometric_mean(const std::vector<double>& values);

}  // namespace ksearch
