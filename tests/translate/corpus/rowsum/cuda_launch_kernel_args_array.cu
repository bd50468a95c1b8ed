// Launches through the runtime API, as code generators that launch type-erased kernels write them: cudaLaunchKernel
// with the kernel's arguments as an array of their addresses (C casts, a named cast, `::`-qualified, the shared bytes
// and stream left to their defaults, a call over two lines), and a templated kernel through a cast.
#include <cuda_runtime.h>
#include <stdint.h>

template <int WARP>
__global__ void rowsum_part(const float* x, float* partial, int64_t cols, int parts) {
  const int64_t per_part = (cols + parts - 1) / parts;
  const int64_t begin = blockIdx.y * per_part, end = begin + per_part < cols ? begin + per_part : cols;
  const float* row = x + blockIdx.x * cols;
  float s = 0.0f;
  for (int64_t c = begin + threadIdx.x; c < end; c += WARP) s += row[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) partial[blockIdx.x * parts + blockIdx.y] = s;
}

__global__ void rowsum_parts(const float* partial, float* y, int64_t rows, int parts) {
  const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int p = 0; p < parts; ++p) s += partial[r * parts + p];
  y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int parts = 4;
  float* partial = nullptr;
  cudaMallocAsync(&partial, sizeof(float) * rows * parts, stream);
  void* part_args[] = {(void*)&x, reinterpret_cast<void*>(&partial), (void *) &cols, &parts};
  dim3 grid((unsigned)rows, parts);
  ::cudaLaunchKernel((const void*)rowsum_part<32>, grid, dim3(32), part_args, 0,
                     stream);
  void* sum_args[] = {&partial, &y, &rows, &parts};
  cudaLaunchKernel(reinterpret_cast<const void*>(&rowsum_parts), dim3((unsigned)((rows + 127) / 128)), dim3(128), sum_args);
  cudaFreeAsync(partial, stream);
}
