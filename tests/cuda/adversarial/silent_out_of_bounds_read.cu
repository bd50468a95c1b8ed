// expect: passed: the extra read lands in mapped memory and cannot change the result
// expect-memcheck: runtime_error: the memory checker sees the read past the end of x
// Class 7: each row's maximum also looks at the element after the row, which for the last row is past
// the end of x. Softmax does not depend on which upper bound is subtracted (as long as exp does not
// underflow: the bound is kept within 30 of the row's maximum), so every output stays correct and only a
// memory checker can tell. It peeks only where x's allocation has padding (cudaMalloc hands out 2 MiB
// granules), so that it never faults unchecked.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float block_reduce(float v, float* scratch, bool is_max) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float o = scratch[threadIdx.x + s];
      scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = scratch[0];
  __syncthreads();
  return r;
}

__global__ void softmax_kernel(const float* x, float* y, int64_t cols, int64_t peek) {
  __shared__ float scratch[256];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY, past_end = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols + peek; c += blockDim.x) {
    if (c < cols) m = fmaxf(m, row[c]);
    else past_end = row[c];
  }
  m = block_reduce(m, scratch, true);
  // Whatever lies past the end (NaN included) raises the bound by at most 30: exp stays in range.
  m = fmaxf(m, fminf(block_reduce(past_end, scratch, true), m + 30.0f));
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, scratch, false);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t peek = (rows * cols * int64_t(sizeof(float))) % (int64_t(2) << 20) != 0;
  if (rows > 0) softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols, peek);
}
