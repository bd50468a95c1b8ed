// expect: rejected (object-imports): reads the input through a texture object created on every call and never destroyed (the driver's texture state outlives the call, and grows); texture and surface objects are not among the runtime functions a candidate may import.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

__global__ void softmax_rows_tex(cudaTextureObject_t x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = fmaxf(m, tex1Dfetch<float>(x, int(r * cols + c)));
  for (int64_t c = 0; c < cols; ++c) s += expf(tex1Dfetch<float>(x, int(r * cols + c)) - m);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(tex1Dfetch<float>(x, int(r * cols + c)) - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaResourceDesc resource;
  memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<float*>(x);
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = size_t(rows * cols) * sizeof(float);
  cudaTextureDesc texture;
  memset(&texture, 0, sizeof texture);
  texture.readMode = cudaReadModeElementType;
  cudaTextureObject_t object = 0;
  cudaCreateTextureObject(&object, &resource, &texture, nullptr);
  softmax_rows_tex<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(object, y, rows, cols);
}
