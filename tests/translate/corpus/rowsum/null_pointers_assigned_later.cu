// Pointers declared null or without a value and assigned later (a staging pointer set only where the row is long
// enough, one chosen between two shared buffers by an if/else, a register pointer): each points into the space its
// assignments give (`threadgroup float* sp = nullptr;`), where the null's own type or `device` had been taken.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_assigned(const float* x, float* y, int cols) {
  __shared__ float part[32];
  __shared__ float other[32];
  float regs[2] = {0.f, 0.f};
  float* sp = nullptr;
  if (cols > 0) sp = part;
  float* pick;
  if (blockIdx.x & 1) pick = part;
  else pick = other;
  float* rp;
  rp = regs;
  for (int c = threadIdx.x; c < cols; c += 32) rp[c & 1] += x[(int64_t)blockIdx.x * cols + c];
  float s = rp[0] + rp[1];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (sp != nullptr && threadIdx.x == 0) sp[0] = s;
  if (threadIdx.x == 0) pick[0] = s;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = (blockIdx.x & 1 ? part[0] : other[0]) * (cols > 0 ? 1.f : 0.f);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_assigned<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
