// rowsum: a warp per row; each lane sums a strided share, the tile reduces it with cg::reduce, and one lane of
// the tile stores the row's sum through cg::invoke_one (CUDA 12's "one thread of the group does it"), whose
// lambda takes the row's output slot and the value as arguments. A second pass checks the store with
// cg::invoke_one_broadcast: every lane reads the stored total back from the one lane that loaded it.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__global__ void row_sums_invoke_one(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int row = blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank();
  if (row >= rows) return;
  float partial = 0.0f;
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) partial += x[(size_t)row * cols + c];
  const float total = cg::reduce(warp, partial, cg::plus<float>());
  cg::invoke_one(warp, [](float* slot, float value) { *slot = value; }, y + row, total);
  const float stored = cg::invoke_one_broadcast(warp, [&] { return y[row]; });
  if (warp.thread_rank() == 7 && stored != total) y[row] = -1.0f;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int warps = 4;
  row_sums_invoke_one<<<(int)((rows + warps - 1) / warps), warps * 32, 0, stream>>>(x, y, (int)rows, (int)cols);
}
