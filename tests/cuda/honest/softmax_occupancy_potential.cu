// task: softmax
// Two passes through a workspace: per-chunk (max, sum) partials of each row from a grid of row chunks, sized by
// cudaOccupancyMaxPotentialBlockSize, then a kernel that merges a row's partials and writes it, launched through
// cudaLaunchKernel with its arguments in a std::vector; the partials' layout in a struct.
#include <cuda_runtime.h>
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <vector>

struct Partial {
  float max;
  float sum;
};

__global__ void chunk_partials(const float* __restrict__ x, Partial* __restrict__ partials, int64_t cols, int64_t chunk, int chunks) {
  const int64_t row = blockIdx.y;
  const int64_t begin = int64_t(blockIdx.x) * chunk, end = min(cols, begin + chunk);
  const float* in = x + row * cols;
  float m = -FLT_MAX, s = 0.f;
  for (int64_t c = begin + threadIdx.x; c < end; c += blockDim.x) {
    const float v = in[c];
    const float nm = fmaxf(m, v);
    s = s * __expf(m - nm) + __expf(v - nm);
    m = nm;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
    const float nm = fmaxf(m, om);
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
  }
  __shared__ Partial warps[32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = {m, s};
  __syncthreads();
  if (threadIdx.x == 0) {
    Partial p = warps[0];
    for (int w = 1; w < int(blockDim.x + 31) / 32; ++w) {
      const float nm = fmaxf(p.max, warps[w].max);
      p.sum = p.sum * __expf(p.max - nm) + warps[w].sum * __expf(warps[w].max - nm);
      p.max = nm;
    }
    partials[row * chunks + blockIdx.x] = p;
  }
}

__global__ void write_rows(const float* __restrict__ x, const Partial* __restrict__ partials, float* __restrict__ y, int64_t cols, int chunks) {
  const int64_t row = blockIdx.y;
  float m = -FLT_MAX, s = 0.f;
  for (int i = 0; i < chunks; ++i) {
    const Partial p = partials[row * chunks + i];
    const float nm = fmaxf(m, p.max);
    s = s * __expf(m - nm) + p.sum * __expf(p.max - nm);
    m = nm;
  }
  const float inv = 1.f / s;
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < cols; c += int64_t(gridDim.x) * blockDim.x)
    y[row * cols + c] = __expf(x[row * cols + c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  int min_grid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, chunk_partials, 0, 0);
  block = std::max(32, block / 32 * 32);
  // About one resident grid of chunk blocks over all rows, at least 4 elements a thread per chunk.
  const int64_t chunks_wanted = std::max<int64_t>(1, (min_grid + rows - 1) / rows);
  const int64_t chunk = std::max<int64_t>(int64_t(block) * 4, (cols + chunks_wanted - 1) / chunks_wanted);
  int chunks = int((cols + chunk - 1) / chunk);
  Partial* partials = nullptr;
  if (cudaMallocAsync(&partials, sizeof(Partial) * size_t(rows) * size_t(chunks), stream) != cudaSuccess) return;
  chunk_partials<<<dim3(unsigned(chunks), unsigned(rows)), block, 0, stream>>>(x, partials, cols, chunk, chunks);
  // The second launch through the runtime's generic entry, its arguments' addresses in a vector.
  const Partial* merged = partials;
  std::vector<void*> args = {&x, &merged, &y, &cols, &chunks};
  const dim3 write_grid(unsigned(std::min<int64_t>(64, (cols + 255) / 256)), unsigned(rows));
  cudaLaunchKernel(reinterpret_cast<const void*>(write_rows), write_grid, dim3(256), args.data(), 0, stream);
  cudaFreeAsync(partials, stream);
}
