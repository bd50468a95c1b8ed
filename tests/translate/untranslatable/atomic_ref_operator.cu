// Untranslatable: a cuda::atomic_ref's operator (line 9), which the port does not declare: write fetch_add.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_operator(const float* x, float* y, int cols) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block>(count) += x[(int64_t)blockIdx.x * cols + threadIdx.x % cols] > 0.f;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = float(count);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_operator<<<rows, 32, 0, stream>>>(x, y, cols);
}
