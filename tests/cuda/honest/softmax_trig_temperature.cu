// task: softmax
// A block per row whose logits are scaled by a temperature computed with cosf and sinf of a row-dependent angle
// (cos^2 + sin^2: 1 within float rounding, so the result is the softmax): sinf/cosf bring libdevice's argument
// reduction for large arguments, whose read-only table of 2/pi's bits (__cudart_i2opi_f) sits in the device code's
// global memory.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[32];
  const float angle = 1.0e4f * (float)blockIdx.x + 0.5f;
  const float temperature = cosf(angle) * cosf(angle) + sinf(angle) * sinf(angle);
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c] / temperature);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) partial[warp] = m;
  __syncthreads();
  m = partial[0];
  for (int w = 1; w < warps; ++w) m = fmaxf(m, partial[w]);
  __syncthreads();
  float s = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] / temperature - m);
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < warps; ++w) s += partial[w];
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] / temperature - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols);
}
