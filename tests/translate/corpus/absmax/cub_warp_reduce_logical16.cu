// cub::WarpReduce with a logical warp of 16 threads: two rows per warp, each row reduced by its half of the warp
// with Reduce(v, op) (a user functor) and, for rows shorter than 16, Reduce(v, op, valid_items); lane 0 of each
// logical warp writes its row. 48 threads per block: three rows, the last in a partial SIMD group.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

struct MaxAbs {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <int LOGICAL>
__global__ void absmax_half_warps(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  using HalfWarpReduce = cub::WarpReduce<float, LOGICAL>;
  __shared__ typename HalfWarpReduce::TempStorage temp[3];
  const int group = threadIdx.x / LOGICAL, lane = threadIdx.x % LOGICAL;
  const int r = blockIdx.x * 3 + group;
  float m = 0.f;
  if (r < rows)
    for (int c = lane; c < cols; c += LOGICAL) m = fmaxf(m, fabsf(x[(int64_t)r * cols + c]));
  float result;
  if (cols < LOGICAL)
    result = HalfWarpReduce(temp[group]).Reduce(m, MaxAbs(), cols);
  else
    result = HalfWarpReduce(temp[group]).Reduce(m, MaxAbs());
  if (lane == 0 && r < rows) y[r] = result;
}

extern "C" void absmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  absmax_half_warps<16><<<(rows + 2) / 3, 48, 0, stream>>>(x, y, (int)rows, (int)cols);
}
