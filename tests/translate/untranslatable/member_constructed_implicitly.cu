// A member whose constructor reads a built-in variable, left to the struct's implicit constructor.
#include <cuda_runtime.h>
#include <stdint.h>

struct Lane {
  unsigned id;
  __device__ Lane() : id(threadIdx.x & 31) {}
};
struct Row {
  Lane lane;
  int row;
};

__global__ void rowsum_kernel(const float* x, float* y, int cols) {
  Row r;
  r.row = blockIdx.x;
  float s = 0.f;
  for (int c = r.lane.id; c < cols; c += 32) s += x[(int64_t)r.row * cols + c];
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (r.lane.id == 0) y[r.row] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
