#pragma once
// TMA copies of fp32 tiles without swizzle: a box of a 2- or 3-dimensional row-major fp32 tensor lands in shared
// memory densely, its rows box[0] floats apart (so a box wider than the columns used pads the rows, e.g. to spread
// them over the banks); what lies past the tensor's ends arrives as zeros.
#include <cuda.h>
#include <stdint.h>

#include "mbarrier.cuh"

// Host: the tensor map of `rank` (2 or 3) dimensions, innermost first (dims[0] contiguous), with boxes of `box`
// elements; false if the driver refuses it (the base must be 16-byte aligned, and so must every row's start).
inline bool tensor_map_f32(CUtensorMap* map, const float* base, int rank, const uint64_t* dims, const uint32_t* box) {
  cuuint64_t sizes[3], strides[2];
  cuuint32_t boxes[3], element_strides[3] = {1, 1, 1};
  uint64_t stride = sizeof(float);
  for (int k = 0; k < rank; ++k) {
    sizes[k] = dims[k];
    boxes[k] = box[k];
    if (k > 0) strides[k - 1] = stride;
    stride *= dims[k];
  }
  return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, const_cast<float*>(base), sizes, strides,
                                boxes, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The box at coordinates (x, y) / (x, y, z), innermost first, into `dst` (a 128-byte aligned shared-memory
// address), completing `bar` with the box's bytes.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, int x, int y, int z, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::
          "r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(z), "r"(bar)
      : "memory");
}
