// A switch over a block size that a host helper computes by a counting loop (the next power of two of the row
// length, clamped), each case calling a launcher template with a guard that returns.
#include <cuda_runtime.h>
#include <cstdint>
#include <algorithm>

static unsigned int next_pow2(unsigned int x) {
  unsigned int p = 1;
  while (p < x) p <<= 1;
  return p;
}

template <int BLOCK>
__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  __shared__ float s[BLOCK];
  const int r = blockIdx.x;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) acc += x[(int64_t)r * cols + c];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int h = BLOCK / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[r] = s[0];
}

template <int BLOCK>
void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  if (rows == 0) return;
  rowsum_k<BLOCK><<<rows, BLOCK, 0, stream>>>(x, y, rows, cols);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const unsigned block = std::min(512u, std::max(32u, next_pow2(unsigned(cols))));
  switch (block) {
    case 512: launch<512>(x, y, rows, cols, stream); break;
    case 256: launch<256>(x, y, rows, cols, stream); break;
    case 128: launch<128>(x, y, rows, cols, stream); break;
    case 64: launch<64>(x, y, rows, cols, stream); break;
    default: launch<32>(x, y, rows, cols, stream); break;
  }
}
