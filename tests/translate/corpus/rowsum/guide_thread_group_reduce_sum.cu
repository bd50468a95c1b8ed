// The CUDA C++ Programming Guide's cooperative-groups reduction: `__device__ float reduce_sum(thread_group g, float*
// temp, float val)` halving through shared memory with g.sync(), called with the thread block as a cg::thread_group
// (the guide's run-time group handle); the row's partial sums by a block-stride loop over block.thread_rank().
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__device__ float reduce_sum(cg::thread_group g, float* temp, float val) {
  const int lane = g.thread_rank();
  // each iteration halves the number of active threads; each thread adds its partial sum[i] to sum[lane + i]
  for (int i = g.size() / 2; i > 0; i /= 2) {
    temp[lane] = val;
    g.sync();  // wait for all threads to store
    if (lane < i) val += temp[lane + i];
    g.sync();  // wait for all threads to load
  }
  return val;  // note: only thread 0 will return the full sum
}

__device__ float thread_sum(const float* row, int cols, const cg::thread_group& g) {
  float sum = 0.f;
  for (int c = g.thread_rank(); c < cols; c += g.size()) sum += row[c];
  return sum;
}

__global__ void rowsum_guide(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float temp[];
  cg::thread_group block = cg::this_thread_block();
  const float mine = thread_sum(x + (int64_t)blockIdx.x * cols, cols, block);
  const float total = reduce_sum(block, temp, mine);
  if (block.thread_rank() == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  rowsum_guide<<<(unsigned)rows, threads, threads * sizeof(float), stream>>>(x, y, (int)cols);
}
