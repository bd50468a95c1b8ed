#pragma once
// Hopper's tensor memory accelerator (TMA) and the mbarriers it completes: a [planes][rows][cols] bf16 tensor is
// copied into shared memory in boxes of 64 columns x box_rows rows, laid out with the 128-byte swizzle that
// wgmma_bf16.cuh's descriptors read; rows past the tensor's end arrive as zeros.
#include <cuda.h>
#include <stdint.h>

#include "../common/mbarrier.cuh"
#include "mma_bf16.cuh"

// Host: the tensor map of a [planes][rows][cols] bf16 tensor (cols a multiple of 64, 16-byte aligned), boxes of
// 64 columns x box_rows; false if the driver refuses it. `promotion`: how much of L2 around a box's lines to fetch
// with them (a tensor read once, like the decode's K/V, streams faster without: 1.2% on the H200's B4 decode).
inline bool tensor_map_rows(CUtensorMap* map, const bf16* base, int64_t planes, int64_t rows, int cols, int box_rows,
                            CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(planes)};
  const cuuint64_t strides[2] = {cuuint64_t(cols) * sizeof(bf16), cuuint64_t(rows) * cols * sizeof(bf16)};  // bytes
  const cuuint32_t box[3] = {64, cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<bf16*>(base), dims, strides, box,
                                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Rows row0 .. row0+ROWS-1 of plane `plane` into `tile` as HALVES boxes of 64 columns (half h at tile + h * ROWS *
// 128), completing `bar` with HALVES * ROWS * 128 bytes.
template <int ROWS, int HALVES>
__device__ __forceinline__ void tma_load_rows(uint32_t tile, const CUtensorMap* map, int row0, int plane, uint32_t bar) {
#pragma unroll
  for (int half = 0; half < HALVES; ++half)
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::
            "r"(tile + half * ROWS * 128),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(half * 64), "r"(row0), "r"(plane), "r"(bar)
        : "memory");
}

// The other direction: HALVES boxes of 64 columns x ROWS rows from `tile` (half h at tile + h * half_stride, laid
// out as the loads leave them) to rows row0.. of plane `plane`, as one bulk group of the calling thread; rows past
// the tensor's end are not written. The shared memory's generic writes must be fenced first (fence_async_shared).
template <int ROWS, int HALVES>
__device__ __forceinline__ void tma_store_rows(const CUtensorMap* map, uint32_t tile, uint32_t half_stride, int row0,
                                               int plane) {
#pragma unroll
  for (int half = 0; half < HALVES; ++half)
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(half * 64), "r"(row0), "r"(plane), "r"(tile + half * half_stride)
                 : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until the calling thread's bulk stores have read their shared memory (it may then be overwritten).
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
