// __reduce_add_sync over a warp's 0/1 flags and a global atomicAdd per warp into counts zeroed by a
// kernel of the file; several blocks per row on blockIdx.y.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void zero_ints(int* __restrict__ p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0;
}

__global__ void count_chunks(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const int row = blockIdx.y;
  unsigned mine = 0;
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
    mine += x[(size_t)row * cols + c] > 0.f ? 1u : 0u;
  const unsigned warp_total = __reduce_add_sync(0xffffffffu, mine);
  if ((threadIdx.x & 31) == 0 && warp_total) atomicAdd(&y[row], (int)warp_total);
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  zero_ints<<<(unsigned)((rows + 127) / 128), 128, 0, stream>>>(y, (int)rows);
  const dim3 grid(4, (unsigned)rows);
  count_chunks<<<grid, 64, 0, stream>>>(x, y, (int)cols);
}
