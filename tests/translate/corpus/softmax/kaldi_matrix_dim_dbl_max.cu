// Kaldi cudamatrix style: a MatrixDim struct {rows, cols, stride} (a C struct typedef'd, passed by value),
// CU1DBLOCK, a Real template with the _softmax_reduce kernel shape (a block per row, a shared aux buffer
// reduced by a tree then a warp-synchronous tail without volatile but with __syncwarp), and a cuda_ wrapper
// per type called through an overloaded C++ function.
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>

#define CU1DBLOCK 256
#define CU_WARP_SIZE 32

typedef struct MatrixDim_ {
  int32_t rows;
  int32_t cols;
  int32_t stride;
} MatrixDim;

template <typename Real>
__global__ static void _softmax_reduce(Real* y, const Real* x, MatrixDim d, int src_stride) {
  __shared__ Real smem[CU1DBLOCK];
  const int i = blockIdx.x;
  const int x_start = i * src_stride;
  const int y_start = i * d.stride;
  const int tid = threadIdx.x;

  // find max element of the row
  Real tmax = sizeof(Real) == sizeof(float) ? -FLT_MAX : -DBL_MAX;
  for (int j = tid; j < d.cols; j += CU1DBLOCK) tmax = fmax(tmax, x[x_start + j]);
  smem[tid] = tmax;
  __syncthreads();
#pragma unroll
  for (int shift = CU1DBLOCK / 2; shift > CU_WARP_SIZE; shift >>= 1) {
    if (tid < shift) smem[tid] = fmax(smem[tid], smem[tid + shift]);
    __syncthreads();
  }
  if (tid < CU_WARP_SIZE) {
    Real v = smem[tid];
    v = fmax(v, smem[tid + CU_WARP_SIZE]);
    __syncwarp();
#pragma unroll
    for (int shift = CU_WARP_SIZE / 2; shift > 0; shift >>= 1) v = fmax(v, __shfl_down_sync(0xffffffff, v, shift));
    if (tid == 0) smem[0] = v;
  }
  __syncthreads();
  const Real max = smem[0];
  __syncthreads();

  // sum exp
  Real tsum = Real(0);
  for (int j = tid; j < d.cols; j += CU1DBLOCK) tsum += exp(x[x_start + j] - max);
  smem[tid] = tsum;
  __syncthreads();
#pragma unroll
  for (int shift = CU1DBLOCK / 2; shift > CU_WARP_SIZE; shift >>= 1) {
    if (tid < shift) smem[tid] += smem[tid + shift];
    __syncthreads();
  }
  if (tid < CU_WARP_SIZE) {
    Real v = smem[tid] + smem[tid + CU_WARP_SIZE];
#pragma unroll
    for (int shift = CU_WARP_SIZE / 2; shift > 0; shift >>= 1) v += __shfl_down_sync(0xffffffff, v, shift);
    if (tid == 0) smem[0] = v;
  }
  __syncthreads();
  const Real inv = Real(1) / smem[0];
  for (int j = tid; j < d.cols; j += CU1DBLOCK) y[y_start + j] = exp(x[x_start + j] - max) * inv;
}

void cudaF_softmax_reduce(size_t Gr, size_t Bl, float* y, const float* x, MatrixDim d, int src_stride,
                          cudaStream_t s) {
  _softmax_reduce<<<Gr, Bl, 0, s>>>(y, x, d, src_stride);
}
void cudaD_softmax_reduce(size_t Gr, size_t Bl, double* y, const double* x, MatrixDim d, int src_stride,
                          cudaStream_t s) {
  _softmax_reduce<<<Gr, Bl, 0, s>>>(y, x, d, src_stride);
}

inline void cuda_softmax_reduce(size_t Gr, size_t Bl, float* y, const float* x, MatrixDim d, int src_stride,
                                cudaStream_t s) {
  cudaF_softmax_reduce(Gr, Bl, y, x, d, src_stride, s);
}
inline void cuda_softmax_reduce(size_t Gr, size_t Bl, double* y, const double* x, MatrixDim d, int src_stride,
                                cudaStream_t s) {
  cudaD_softmax_reduce(Gr, Bl, y, x, d, src_stride, s);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  MatrixDim dim;
  dim.rows = (int32_t)rows;
  dim.cols = (int32_t)cols;
  dim.stride = (int32_t)cols;
  cuda_softmax_reduce(rows, CU1DBLOCK, y, x, dim, (int)cols, stream);
}
