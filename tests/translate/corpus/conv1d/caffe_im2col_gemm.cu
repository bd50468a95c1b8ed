// Caffe's convolution as im2col + GEMM: CUDA_KERNEL_LOOP and CAFFE_GET_BLOCKS, a column buffer
// cudaMalloc'd as scratch (cin * kw rows of len), then a plain GEMM kernel over a 2-D grid.
#include <cuda_runtime.h>
#include <stdint.h>

#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

const int CAFFE_CUDA_NUM_THREADS = 128;

inline int CAFFE_GET_BLOCKS(const int N) { return (N + CAFFE_CUDA_NUM_THREADS - 1) / CAFFE_CUDA_NUM_THREADS; }

__global__ void im2col_1d(const int n, const float* data_im, const int len, const int kw, const int pad, float* data_col) {
  CUDA_KERNEL_LOOP(index, n) {
    const int l = index % len;
    const int ck = index / len;  // channel * kw + tap
    const int c = ck / kw, k = ck % kw;
    const int p = l + k - pad;
    data_col[index] = (p >= 0 && p < len) ? data_im[c * len + p] : 0.f;
  }
}

__global__ void gemm_nn(const int m, const int n, const int k, const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.f;
  for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];
  c[row * n + col] = sum;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int64_t cin, int64_t cout, int64_t len, int64_t kw,
                       cudaStream_t stream) {
  float* col = nullptr;
  const int num_kernels = cin * kw * len;
  cudaMalloc(&col, num_kernels * sizeof(float));
  im2col_1d<<<CAFFE_GET_BLOCKS(num_kernels), CAFFE_CUDA_NUM_THREADS, 0, stream>>>(num_kernels, x, len, kw, kw / 2, col);
  dim3 block(16, 8);
  dim3 grid((len + 15) / 16, (cout + 7) / 8);
  gemm_nn<<<grid, block, 0, stream>>>(cout, len, cin * kw, w, col, y);
  cudaFree(col);
}
