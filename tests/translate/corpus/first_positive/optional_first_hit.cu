// cuda::std::optional<int> from a __device__ function (`return c;`, `return cuda::std::nullopt;`), tested as a bool,
// read by `*`, `value_or` and `has_value`, reassigned; the row's first hit by a warp's minimum.
#include <cuda/std/limits>
#include <cuda/std/optional>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ cuda::std::optional<int> first_above(const float* row, int begin, int end, int step, float threshold) {
  for (int c = begin; c < end; c += step)
    if (row[c] > threshold) return c;
  return cuda::std::nullopt;
}

__global__ void first_positive_optional(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  const int lane = threadIdx.x;
  cuda::std::optional<int> hit = first_above(row, lane, cols, 32, 3.f);
  int mine = cuda::std::numeric_limits<int>::max();
  if (hit) mine = *hit;
  if (hit.has_value() && mine != hit.value_or(-1)) mine = -2;  // never: the same value
  for (int offset = 16; offset > 0; offset >>= 1) mine = min(mine, __shfl_xor_sync(0xffffffffu, mine, offset));
  hit = cuda::std::nullopt;
  if (mine != cuda::std::numeric_limits<int>::max()) hit = mine;
  if (lane == 0) y[blockIdx.x] = hit.value_or(-1);
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_positive_optional<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
