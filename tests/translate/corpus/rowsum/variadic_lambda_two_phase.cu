// Two kernels in sequence through one variadic lambda (`[&](auto kernel, dim3 grid, int threads, auto... args)`): a
// 2-D grid of per-chunk partial sums into a cudaMallocAsync scratch buffer, then a pass summing each row's partials;
// each launch's `args...` is its call's arguments, its grid the dim3 the call gives.
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kChunk = 256;

__global__ void partial_sums(const float* __restrict__ x, float* __restrict__ partial, int64_t cols, int64_t chunks) {
  const int64_t row = blockIdx.y, chunk = blockIdx.x;
  __shared__ float s[kChunk];
  const int64_t c = chunk * kChunk + threadIdx.x;
  s[threadIdx.x] = c < cols ? x[row * cols + c] : 0.f;
  __syncthreads();
  for (int w = kChunk / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[row * chunks + chunk] = s[0];
}

__global__ void finish(const float* __restrict__ partial, float* __restrict__ y, int64_t rows, int64_t chunks) {
  const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float total = 0.f;
  for (int64_t k = 0; k < chunks; ++k) total += partial[row * chunks + k];
  y[row] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t chunks = (cols + kChunk - 1) / kChunk;
  float* partial = nullptr;
  cudaMallocAsync(&partial, sizeof(float) * rows * chunks, stream);
  auto run = [&](auto kernel, dim3 grid, int threads, auto... args) {
    kernel<<<grid, threads, 0, stream>>>(args...);
  };
  run(partial_sums, dim3(unsigned(chunks), unsigned(rows)), kChunk, x, partial, cols, chunks);
  run(finish, dim3(unsigned((rows + 127) / 128)), 128, (const float*)partial, y, rows, chunks);
  cudaFreeAsync(partial, stream);
}
