// A row sum on a side stream the host function creates with cudaStreamCreateWithFlags(cudaStreamNonBlocking), ordered
// after the caller's stream and back by an event, then destroyed (MLX runs a call's kernels in order: the launch is
// read as any other); a host-side rsqrtf scale (CUDA's math library has it on the host too); partial sums kept in a
// float4 indexed through a pointer to its first component, `(&acc.x)[c & 3]` (CUDA's float4 is a struct; a Metal
// vector is indexed itself).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_components(const float* x, float* y, int cols, float scale) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int c = threadIdx.x; c < cols; c += 32) (&acc.x)[c & 3] += x[(int64_t)blockIdx.x * cols + c];
  float s = acc.x + acc.y + acc.z + acc.w;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[blockIdx.x] = s * scale;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventRecord(ready, stream);
  cudaStreamWaitEvent(side, ready, 0);
  const float scale = rsqrtf(1.0f);
  rowsum_components<<<(unsigned)rows, 32, 0, side>>>(x, y, (int)cols, scale);
  cudaEventRecord(ready, side);
  cudaStreamWaitEvent(stream, ready, 0);
  cudaEventDestroy(ready);
  cudaStreamDestroy(side);
}
