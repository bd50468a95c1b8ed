// Groups made inline as arguments: each thread stages its element by cg::memcpy_async(cg::this_thread(), ...) and
// cg::wait(cg::this_thread()) inside a branch only some threads take (a one-thread group waits for nothing), and the
// warp's sum is cg::reduce over cg::tiled_partition<32>(cg::this_thread_block()) written in the call.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__global__ void rowsum_inline_groups(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float staged[32];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += 32) {
    const int c = c0 + threadIdx.x;
    if (c < cols) {
      cg::memcpy_async(cg::this_thread(), &staged[threadIdx.x], row + c, sizeof(float));
      cg::wait(cg::this_thread());
      s += staged[threadIdx.x];
    }
  }
  s = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), s, cg::plus<float>());
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_inline_groups<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
