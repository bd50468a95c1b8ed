// rowsum: __shared__ pointers of other shapes: a __device__ function's __shared__ array of row pointers (declared by
// the kernel and passed down: `const device float* threadgroup (&start)[4]`), a scalar __shared__ pointer into the
// kernel's own __shared__ array (`slot = partial`: it points into threadgroup memory), one into the output set by
// thread 0, and a __shared__ array of structs whose pointer field points into the output (`device`).
#include <cuda_runtime.h>
#include <stdint.h>

struct RowView {
  int64_t start;
  float* out;
};

__device__ float row_sum(const float* x, int cols, int row) {
  __shared__ const float* start[4];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) start[warp] = x + (int64_t)row * cols;
  __syncwarp();
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += start[warp][c];
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}

__global__ void rowsum_shared_pointers(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float partial[4];
  __shared__ float* slot;
  __shared__ float* out;
  __shared__ RowView view[4];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row = blockIdx.x * 4 + warp;
  if (threadIdx.x == 0) {
    slot = partial;
    out = y + blockIdx.x * 4;
  }
  if (lane == 0) view[warp] = RowView{(int64_t)row * cols, y + row};
  __syncthreads();
  float s = row < rows ? row_sum(x, cols, row) : 0.f;
  if (lane == 0) slot[warp] = s;
  __syncthreads();
  if (threadIdx.x < 4 && blockIdx.x * 4 + threadIdx.x < rows) out[threadIdx.x] = partial[threadIdx.x];
  __syncthreads();
  // the same sums again, stored through the structs' pointers
  if (row >= rows) return;
  float t = 0.f;
  for (int c = lane; c < cols; c += 32) t += x[view[warp].start + c];
  for (int o = 16; o; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
  if (lane == 0) *view[warp].out = t;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_shared_pointers<<<(rows + 3) / 4, 128, 0, stream>>>(x, y, (int)rows, (int)cols);
}
