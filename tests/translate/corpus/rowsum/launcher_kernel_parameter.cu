// A launcher that takes the kernel as a parameter (`template <typename Kernel> void launch_with(Kernel kernel, ...)`),
// called with a pointer the entry holds and with the address of another instantiation: the launch is a choice between
// the two kernels, its thread count the launcher's parameter.
#include <cuda_runtime.h>
#include <cstdint>

template <int BLOCK>
__global__ void rowsum_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[BLOCK];
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += BLOCK) s += x[blockIdx.x * cols + i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

template <typename Kernel>
static void launch_with(Kernel kernel, int threads, const float* x, float* y, int64_t rows, int64_t cols,
                        cudaStream_t stream) {
  kernel<<<unsigned(rows), threads, 0, stream>>>(x, y, cols);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const auto wide = &rowsum_block<256>;
  if (cols > 256)
    launch_with(wide, 256, x, y, rows, cols, stream);
  else
    launch_with(&rowsum_block<64>, 64, x, y, rows, cols, stream);
}
