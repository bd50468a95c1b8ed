// Persistent blocks sized by the device, as production launchers do: cudaGetDeviceProperties' SM count and
// warp size, cudaOccupancyMaxActiveBlocksPerMultiprocessor for the blocks each SM holds, the grid the smaller of
// the rows' blocks and the resident ones; a block-stride loop over rows makes any grid correct.
#include <cuda_runtime.h>
#include <stdint.h>

template <int THREADS>
__global__ void softmax_persistent(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  __shared__ float red[THREADS / 32];
  __shared__ float total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* in = x + row * cols;
    float m = -INFINITY;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, in[c]);
    for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
      float v = red[0];
      for (int w = 1; w < THREADS / 32; ++w) v = fmaxf(v, red[w]);
      total = v;
    }
    __syncthreads();
    m = total;
    __syncthreads();
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) s += expf(in[c] - m);
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      float v = 0.0f;
      for (int w = 0; w < THREADS / 32; ++w) v += red[w];
      total = v;
    }
    __syncthreads();
    const float inv = 1.0f / total;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) y[row * cols + c] = expf(in[c] - m) * inv;
    __syncthreads();
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_persistent<256>, 256, 0);
  const int64_t resident = (int64_t)prop.multiProcessorCount * (per_sm > 0 ? per_sm : 1);
  const unsigned blocks = (unsigned)(rows < resident ? rows : resident);
  softmax_persistent<256><<<blocks, 256, 0, stream>>>(x, y, rows, cols);
}
