// FasterTransformer's online softmax: an __align__(8) (max, sum) struct reduced by cub::BlockReduce with a __device__
// function as its operation (a function object in Metal, which has no function pointers; the struct shuffled by members).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

struct __align__(8) MD {
  float m;
  float d;
};

__device__ __forceinline__ MD reduce_md_op(MD a, MD b) {
  bool a_bigger = (a.m > b.m);
  MD bigger_m = a_bigger ? a : b;
  MD smaller_m = a_bigger ? b : a;
  MD res;
  res.d = bigger_m.d + smaller_m.d * __expf(smaller_m.m - bigger_m.m);
  res.m = bigger_m.m;
  return res;
}

template <int THREADBLOCK_SIZE>
__launch_bounds__(THREADBLOCK_SIZE) __global__ void online_softmax(const float* __restrict__ x, float* __restrict__ y, int V) {
  int thread_id = threadIdx.x;
  int vector_id = blockIdx.x;
  x += vector_id * V;
  y += vector_id * V;
  typedef cub::BlockReduce<MD, THREADBLOCK_SIZE> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp_storage;
  __shared__ MD md_total;
  MD md_partial;
  md_partial.m = -FLT_MAX;
  md_partial.d = 0.0F;
  for (int elem_id = thread_id; elem_id < V; elem_id += THREADBLOCK_SIZE) {
    MD new_elem;
    new_elem.m = x[elem_id];
    new_elem.d = 1.0F;
    md_partial = reduce_md_op(md_partial, new_elem);
  }
  MD md = BlockReduce(temp_storage).Reduce(md_partial, reduce_md_op);
  if (thread_id == 0) md_total = md;
  __syncthreads();
  float d_total_inverse = __fdividef(1.0F, md_total.d);
  for (int elem_id = thread_id; elem_id < V; elem_id += THREADBLOCK_SIZE)
    y[elem_id] = __expf(x[elem_id] - md_total.m) * d_total_inverse;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  online_softmax<256><<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
