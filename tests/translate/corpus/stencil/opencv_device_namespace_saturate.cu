// OpenCV cuda::device style: nested namespaces cv::cuda::device, saturate_cast<T> templates with explicit
// specializations (uchar, short, float), a BrdConstant border functor (at(y, x, src) with a template source),
// a plain Ptr2D-like struct built by brace initialization and passed by value, a Laplacian as a 3x3 filter.
#include <cuda_runtime.h>
#include <stdint.h>

typedef unsigned char uchar;

namespace cv { namespace cuda { namespace device {

template <typename _Tp> __device__ __forceinline__ _Tp saturate_cast(uchar v) { return _Tp(v); }
template <typename _Tp> __device__ __forceinline__ _Tp saturate_cast(float v) { return _Tp(v); }
template <> __device__ __forceinline__ uchar saturate_cast<uchar>(float v) {
  uint res = 0;
  asm("cvt.rni.sat.u8.f32 %0, %1;" : "=r"(res) : "f"(v));
  return (uchar)res;
}
template <> __device__ __forceinline__ short saturate_cast<short>(float v) {
  int iv = __float2int_rn(v);
  return (short)::min(::max(iv, -32768), 32767);
}

template <typename T> struct GlobPtr {
  const T* data;
  int step;  // in elements
  __device__ __forceinline__ const T& operator()(int y, int x) const { return data[y * step + x]; }
};

template <typename D> struct BrdConstant {
  typedef D result_type;
  int height;
  int width;
  D val;
  template <typename Ptr2D>
  __device__ __forceinline__ D at(int y, int x, const Ptr2D& src) const {
    return (x >= 0 && x < width && y >= 0 && y < height) ? saturate_cast<D>(src(y, x)) : val;
  }
};

template <typename T, typename D, class Brd>
__global__ void laplacian3(const GlobPtr<T> src, D* dst, const Brd brd, int rows, int cols) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cols || y >= rows) return;
  const float kernel[3][3] = {{0.f, 1.f, 0.f}, {1.f, -4.f, 1.f}, {0.f, 1.f, 0.f}};
  float sum = 0.f;
#pragma unroll
  for (int i = -1; i <= 1; ++i)
#pragma unroll
    for (int j = -1; j <= 1; ++j) sum += kernel[i + 1][j + 1] * brd.at(y + i, x + j, src);
  dst[y * cols + x] = saturate_cast<D>(sum);
}

}}}  // namespace cv::cuda::device

extern "C" void stencil(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  using namespace cv::cuda::device;
  GlobPtr<float> src{x, (int)cols};
  BrdConstant<float> brd{(int)rows, (int)cols, 0.f};
  const dim3 block(32, 8);
  const dim3 grid((unsigned)((cols + block.x - 1) / block.x), (unsigned)((rows + block.y - 1) / block.y));
  laplacian3<float, float, BrdConstant<float>><<<grid, block, 0, stream>>>(src, y, brd, (int)rows, (int)cols);
}
