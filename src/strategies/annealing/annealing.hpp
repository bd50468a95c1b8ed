#pragma once
// Simulated annealing over the built-in proposer's template knobs ("annealing"), after Kernel
// Tuner's simulated_annealing strategy: from a random configuration (template family + knob
// values), each round evaluates one unvisited neighbour (one knob moved to an adjacent value, or
// another family at its defaults) and moves there with the Metropolis probability on the relative
// cost difference; the temperature cools geometrically from t_start to t_end over the round
// budget. Cost is the candidate's mean median time; a failing candidate has infinite cost.
// Everything random comes from one generator seeded with `seed` and kept in the snapshot, so a run
// is reproducible and resumes exactly. Options (strategy config): seed, t_start, t_end.
#include <cstdint>

namespace ksearch::annealing {

struct Options {
  uint64_t seed = 1;
  double t_start = 1.0;  // Kernel Tuner's T
  double t_end = 0.001;  // Kernel Tuner's T_min
};

// Probability of moving from a configuration of cost `current` to one of cost `candidate` at
// temperature t (Kernel Tuner's acceptance_prob): 1 when the current cost is infinite (an invalid
// start) or the candidate is cheaper, 0 when the candidate is invalid, else
// exp(-(candidate - current) / current / t).
double acceptance_probability(double current, double candidate, double t);

// The temperature of step k (0-based) of a budget of `steps`.
double temperature(const Options& options, int k, int steps);

}  // namespace ksearch::annealing
