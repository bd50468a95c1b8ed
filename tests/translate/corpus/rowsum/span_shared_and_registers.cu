// cuda::std::span over memory outside device buffers: a static-extent span of a __shared__ array built from the array,
// a span of a register array, and one over a pointer into the shared array (`&warp_sums[2]`, a count); each views its
// own address space (threadgroup, thread).
#include <cuda/std/span>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 128, kWarps = kThreads / 32, kItems = 4;

__global__ void rowsum_spans(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  float items[kItems] = {0.f, 0.f, 0.f, 0.f};
  cuda::std::span<float> lanes(items);
  for (int c = threadIdx.x; c < cols; c += kThreads) lanes[(c / kThreads) % lanes.size()] += row[c];
  float acc = 0.f;
  for (float v : lanes) acc += v;
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  __shared__ float warp_sums[kWarps];
  cuda::std::span<float, kWarps> sums(warp_sums);
  if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    const cuda::std::span<const float> back(&warp_sums[kWarps / 2], kWarps / 2);
    float total = 0.f;
    for (size_t w = 0; w < sums.size() - back.size(); ++w) total += sums[w];
    for (float s : back) total += s;
    y[blockIdx.x] = total;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_spans<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
