// Counts through a launcher of the file: it zeroes the counts with a kernel of its own (an unsigned index, the store
// under an if), then warps of a 2-D block count their share of a row with __ballot_sync/__popc and add it with
// atomicAdd. The zeroing becomes the counting kernel's init_value.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void zero_counts(int* counts, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    counts[i] = 0;
  }
}

__global__ void count_rows(const float* __restrict__ x, int* counts, int cols) {
  const int row = blockIdx.x;
  const unsigned lane = threadIdx.x;
  int mine = 0;
  for (int base = threadIdx.y * 32; base < cols; base += 32 * blockDim.y) {
    const int c = base + lane;
    const unsigned votes = __ballot_sync(0xffffffffu, c < cols && x[(int64_t)row * cols + c] > 0.0f);
    mine += __popc(votes);
  }
  if (lane == 0) atomicAdd(&counts[row], mine);
}

static void launch_counts(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  zero_counts<<<(unsigned)((rows + 127) / 128), 128, 0, stream>>>(y, (unsigned)rows);
  count_rows<<<rows, dim3(32, 4), 0, stream>>>(x, y, (int)cols);
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_counts(x, y, rows, cols, stream);
}
