// vLLM-style rotary embedding: template <typename scalar_t, bool IS_NEOX> kernel and __device__ helper,
// the layout chosen by a runtime bool in the entry, block = std::min(heads * half, 512).
#include <cuda_runtime.h>
#include <stdint.h>
#include <algorithm>

template <typename scalar_t, bool IS_NEOX>
inline __device__ void apply_token_rotary_embedding(const scalar_t* __restrict__ arr, scalar_t* __restrict__ out,
                                                    const scalar_t* __restrict__ cos_ptr,
                                                    const scalar_t* __restrict__ sin_ptr, int rot_offset,
                                                    int embed_dim) {
  int x_index, y_index;
  scalar_t cos, sin;
  if (IS_NEOX) {
    // GPT-NeoX style rotary embedding.
    x_index = rot_offset;
    y_index = embed_dim + rot_offset;
    cos = __ldg(cos_ptr + x_index);
    sin = __ldg(sin_ptr + x_index);
  } else {
    // GPT-J style rotary embedding.
    x_index = 2 * rot_offset;
    y_index = 2 * rot_offset + 1;
    cos = __ldg(cos_ptr + x_index / 2);
    sin = __ldg(sin_ptr + x_index / 2);
  }
  const scalar_t x = arr[x_index];
  const scalar_t y = arr[y_index];
  out[x_index] = x * cos - y * sin;
  out[y_index] = y * cos + x * sin;
}

template <typename scalar_t, bool IS_NEOX>
__global__ void rotary_embedding_kernel(const scalar_t* __restrict__ query,   // [tokens, heads, rot_dim]
                                        const scalar_t* __restrict__ cos_cache,  // [tokens, rot_dim / 2]
                                        const scalar_t* __restrict__ sin_cache,  // [tokens, rot_dim / 2]
                                        scalar_t* __restrict__ out, const int rot_dim, const int64_t query_stride,
                                        const int num_heads) {
  const int token_idx = blockIdx.x;
  const scalar_t* cos_ptr = cos_cache + (int64_t)token_idx * (rot_dim / 2);
  const scalar_t* sin_ptr = sin_cache + (int64_t)token_idx * (rot_dim / 2);
  const int embed_dim = rot_dim / 2;
  const int nq = num_heads * embed_dim;
  for (int i = threadIdx.x; i < nq; i += blockDim.x) {
    const int head_idx = i / embed_dim;
    const int64_t token_head = token_idx * query_stride + head_idx * rot_dim;
    const int rot_offset = i % embed_dim;
    apply_token_rotary_embedding<scalar_t, IS_NEOX>(query + token_head, out + token_head, cos_ptr, sin_ptr,
                                                    rot_offset, embed_dim);
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h,
                     int64_t half, cudaStream_t stream) {
  const bool is_neox = true;
  const int rot_dim = (int)(2 * half);
  const int64_t query_stride = h * rot_dim;
  dim3 grid(t);
  dim3 block(std::min<int64_t>(h * half, 512));
  if (is_neox) {
    rotary_embedding_kernel<float, true><<<grid, block, 0, stream>>>(x, cos, sin, y, rot_dim, query_stride, (int)h);
  } else {
    rotary_embedding_kernel<float, false><<<grid, block, 0, stream>>>(x, cos, sin, y, rot_dim, query_stride, (int)h);
  }
}
