// Untranslatable: a call in a kernel template of a function template whose parameter T only a pointer to a struct
// template deduces (line 19); once the pointer's type is a template parameter of its own, the call must name T.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
struct Pair {
  T a, b;
};

template <typename T>
__device__ T pair_sum(const Pair<T>* p) { return p->a + p->b; }

template <typename T>
__global__ void rowsum_k(const Pair<T>* x, T* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  T s = 0;
  for (int c = 0; c < cols / 2; ++c) s += pair_sum(x + (int64_t)r * (cols / 2) + c);
  y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<float><<<(rows + 63) / 64, 64, 0, stream>>>(reinterpret_cast<const Pair<float>*>(x), y, (int)rows, (int)cols);
}
