// Header: structs, templates, address-space-qualified helpers, program-scope constants.
#include <metal_stdlib>
using namespace metal;

constant float kWeights[4] = {0.1f, 0.2f, 0.3f, 0.4f};

struct Pair {
  float lo;
  float hi;
  float span() const { return hi - lo; }
};

template <typename T, int K>
METAL_FUNC T weighted(const device T* p, uint base) {
  T acc = T(0);
  for (int k = 0; k < K; ++k) acc += p[base + k] * T(kWeights[k]);
  return acc;
}

inline void store_pair(device float* dst, thread const Pair& p) {
  dst[0] = p.lo;
  dst[1] = p.hi;
}
