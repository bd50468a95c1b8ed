// expect: rejected (object-imports): captures its launch into a CUDA graph and launches the graph, every graph and capture function token-pasted in host-only code (#ifndef __CUDA_ARCH__): the text rules never see the names, nor do the rules on nvcc -E's output (the device side); the built library imports them.
#include <cuda_runtime.h>
#include <stdint.h>
#define CAT(a, b) a##b

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
#ifndef __CUDA_ARCH__
  CAT(cuda, Graph_t) graph = nullptr;
  CAT(cuda, GraphExec_t) exec = nullptr;
  CAT(cudaStreamBegin, Capture)(stream, CAT(cudaStreamCapture, ModeRelaxed));
  softmax_rows<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
  CAT(cudaStreamEnd, Capture)(stream, &graph);
  CAT(cuda, GraphInstantiate)(&exec, graph, 0);
  CAT(cuda, GraphLaunch)(exec, stream);
#endif
}
