#pragma once
// core/stats: summaries of timing samples (median, percentiles), the means speedups are averaged
// with, and confidence intervals on ratios measured several times.
#include <vector>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

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

// A ratio (e.g. a speedup) estimated from repeated measurements of it: the geometric mean, with a
// Student-t confidence interval on the mean of the logarithms (ratios are log-normal-ish, and the
// interval of a product of ratios stays symmetric on that scale). With fewer than two
// measurements the interval is the estimate itself and `samples` says why.
struct RatioInterval {
  double estimate = 0, low = 0, high = 0;
  int samples = 0;
  bool overlaps(const RatioInterval& other) const { return low <= other.high && other.low <= high; }
  bool contains(double value) const { return low <= value && value <= high; }
  // high / low: 1.2 means the interval spans about +-9% around the estimate.
  double width_ratio() const { return low > 0 ? high / low : 0; }
};
RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence = 0.95);

// A speedup measured once against another, each with the relative spread of its timing samples
// (TimingSummary::spread(): p10 to p90 over the median). The gain counts only when it exceeds the
// noise: half their combined spread (about two standard errors of the difference of two medians of
// five samples), and at least kMinSignificantGain. A spread of 0 (unknown) takes the other's.
inline constexpr double kMinSignificantGain = 0.02;
struct Gain {
  double factor = 0;  // after / before
  double noise = 0;   // relative: the gain must exceed 1 + noise
  bool significant() const { return factor > 1 + noise; }
};
Gain measured_gain(double after, double after_spread, double before, double before_spread);

}  // namespace ksearch
