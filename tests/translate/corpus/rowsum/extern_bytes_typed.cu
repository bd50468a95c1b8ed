// Dynamic shared memory declared as aligned bytes and viewed as floats, several pointers declared
// in one statement, a kernel templated on the element type (float), size_t grid-stride indices.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__global__ void rowsum_t(const T* __restrict__ x, T* __restrict__ y, int cols) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sums = reinterpret_cast<T*>(smem);
  const T *row = x + (size_t)blockIdx.x * cols, *end = row + cols;
  T s = T(0);
  for (const T* p = row + threadIdx.x; p < end; p += blockDim.x) s += *p;
  sums[threadIdx.x] = s;
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) sums[threadIdx.x] += sums[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = sums[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  rowsum_t<float><<<rows, threads, threads * sizeof(float), stream>>>(x, y, (int)cols);
}
