// Two passes through a scratch buffer of structs of mixed field types: each block finds the first hit of its chunk
// of a row (index, value, a found flag), then one thread per row merges the row's chunks in order.
#include <cuda_runtime.h>
#include <cstdint>

struct Hit {
  int index;
  float value;
  unsigned char found;
};

constexpr int kThreads = 128;
constexpr int kChunk = 256;

__global__ void chunk_hits(const float* x, Hit* hits, int cols, int chunks) {
  __shared__ int first;
  if (threadIdx.x == 0) first = cols;
  __syncthreads();
  const int row = blockIdx.y, begin = blockIdx.x * kChunk;
  for (int c = begin + threadIdx.x; c < min(cols, begin + kChunk); c += blockDim.x)
    if (x[row * cols + c] > 3.f) atomicMin(&first, c);
  __syncthreads();
  if (threadIdx.x == 0) {
    Hit h;
    h.found = first < cols ? 1 : 0;
    h.index = h.found ? first : -1;
    h.value = h.found ? x[row * cols + first] : 0.f;
    hits[row * chunks + blockIdx.x] = h;
  }
}

__global__ void merge_hits(const Hit* hits, int* y, int rows, int chunks) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int index = -1;
  for (int i = 0; i < chunks && index < 0; ++i) {
    const Hit h = hits[row * chunks + i];
    if (h.found && h.value > 3.f) index = h.index;
  }
  y[row] = index;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows64, int64_t cols64, cudaStream_t stream) {
  const int rows = int(rows64), cols = int(cols64);
  const int chunks = (cols + kChunk - 1) / kChunk;
  Hit* hits;
  cudaMallocAsync(&hits, sizeof(Hit) * rows * chunks, stream);
  chunk_hits<<<dim3(chunks, rows), kThreads, 0, stream>>>(x, hits, cols, chunks);
  merge_hits<<<(rows + 63) / 64, 64, 0, stream>>>(static_cast<const Hit*>(hits), y, rows, chunks);
  cudaFreeAsync(hits, stream);
}
