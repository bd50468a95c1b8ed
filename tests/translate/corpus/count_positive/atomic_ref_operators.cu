// cuda::atomic_ref's and cuda::atomic's operators: a shared count zeroed by assignment, `ref += flag` for a run of
// positive values, `++ref` and `ref++` for single ones, `--ref` and `ref -= 1` undoing a guess, and the count read
// back through the reference's conversion (`int total = ref;`).
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_with_refs(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int count;
  __shared__ cuda::atomic<int, cuda::thread_scope_block> guesses;
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(count);
  if (threadIdx.x == 0) {
    ref = 0;
    guesses = 0;
  }
  __syncthreads();
  const float* row = x + (int64_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    if (c % 3 == 0) {
      ref += row[c] > 0.f;
    } else if (row[c] > 0.f) {
      if (c % 3 == 1) ++ref;
      else ref++;
    }
    ++guesses;  // a guess that the next value is positive, undone below
    guesses -= 1;
  }
  if (threadIdx.x == 0) {
    ++ref;
    --ref;
    ref -= 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int total = ref;
    y[blockIdx.x] = total + guesses;
  }
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_with_refs<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
