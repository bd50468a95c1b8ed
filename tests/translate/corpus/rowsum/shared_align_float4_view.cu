// rowsum: a block per row stages 256 elements at a time in two shared halves declared __align__(16), one with the
// alignment after __shared__ and one before it, after a one-float shared flag that would leave a plain float array
// off a 16-byte boundary; two warps then read the halves as float4 and reduce with shuffles.
#include <cuda_runtime.h>

__global__ void rowsum_kernel(const float* x, float* y, int cols) {
  __shared__ float scale[1];
  __shared__ __align__(16) float low[128];
  __align__(16) __shared__ float high[128];
  const int row = blockIdx.x, t = threadIdx.x;
  if (t == 0) scale[0] = 1.f;
  float acc = 0.f;
  for (int c0 = 0; c0 < cols; c0 += 256) {
    const int c = c0 + t;
    const float v = c < cols ? x[(size_t)row * cols + c] : 0.f;
    if (t < 128) low[t] = v;
    else high[t - 128] = v;
    __syncthreads();
    if (t < 64) {
      const float4 q = t < 32 ? reinterpret_cast<const float4*>(low)[t] : reinterpret_cast<const float4*>(high)[t - 32];
      acc += (q.x + q.y + q.z + q.w) * scale[0];
    }
    __syncthreads();
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  __shared__ float warp_sums[2];
  if (t < 64 && (t & 31) == 0) warp_sums[t >> 5] = acc;
  __syncthreads();
  if (t == 0) y[row] = warp_sums[0] + warp_sums[1];
}

void rowsum(const float* x, float* y, int rows, int cols) {
  rowsum_kernel<<<rows, 256>>>(x, y, cols);
}
