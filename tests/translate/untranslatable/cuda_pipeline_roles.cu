// Untranslatable: a block's pipeline split into producer and consumer threads (line 14), whose waits the two roles
// reach at different points.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;
__global__ void k_roles(const float* x, float* y, int cols) {
  __shared__ float buf[2][64];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  const bool producer = threadIdx.x < 32;
  const auto role = producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  auto pipe = cuda::make_pipeline(block, &state, role);
  if (producer) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][threadIdx.x], x + (int64_t)blockIdx.x * cols + threadIdx.x, sizeof(float), pipe);
    pipe.producer_commit();
  } else {
    pipe.consumer_wait();
    if (threadIdx.x == 32) y[blockIdx.x] = buf[0][0];
    pipe.consumer_release();
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_roles<<<rows, 64, 0, stream>>>(x, y, cols);
}
