// A parameter struct passed as `const __grid_constant__`, built field by field by the launcher, device
// assert() on the block shape, __ldcg/__stcg cache hints, a warp per row with warps of the block striding rows.
#include <cassert>
#include <cuda_runtime.h>
#include <stdint.h>

struct RmsParams {
  const float* __restrict__ x;
  const float* __restrict__ weight;
  float* __restrict__ y;
  int rows;
  int cols;
  float eps;
};

__global__ void rmsnorm_warps(const __grid_constant__ RmsParams p) {
  assert(blockDim.x % 32 == 0);
  const int warps = blockDim.x / 32;
  const int lane = threadIdx.x & 31;
  for (int row = blockIdx.x * warps + threadIdx.x / 32; row < p.rows; row += gridDim.x * warps) {
    const float* in = p.x + (size_t)row * p.cols;
    float ss = 0.f;
    for (int c = lane; c < p.cols; c += 32) {
      const float v = __ldcg(in + c);
      ss = fmaf(v, v, ss);
    }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    const float scale = rsqrtf(ss / p.cols + p.eps);
    for (int c = lane; c < p.cols; c += 32) __stcg(p.y + (size_t)row * p.cols + c, in[c] * scale * p.weight[c]);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  RmsParams p;
  p.x = x;
  p.weight = weight;
  p.y = y;
  p.rows = (int)rows;
  p.cols = (int)cols;
  p.eps = eps;
  const int warps_per_block = 4;
  int blocks = (p.rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 6) blocks = 6;
  rmsnorm_warps<<<blocks, warps_per_block * 32, 0, stream>>>(p);
}
