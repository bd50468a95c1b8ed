// attention_bf16, built-in metal template family flash_lanes: flash attention in SIMT form. One threadgroup of SG
// SIMD groups per block of SG * QR queries of a (batch, head); K/V tiles staged in threadgroup memory; per
// tile, lanes over keys for the scores, an online softmax, lanes over the head dimension for P.V.
// Knobs: ksearch sets each knob's template directive below to the value it tries (flash_lanes.toml lists them).
// The grid counts threads: 32 * SG per query block, ceil(lq / (SG * QR)) blocks.
// grid: 32 * SG * ceil(lq / (SG * QR)), hq, b
// threadgroup: 32 * SG, 1, 1
// template: D = d
// template: SG = 4
// template: QR = 2
// template: KB = 32
#include "../attention/flash.h"
// --- body ---
constexpr int DS = D % 2 == 1 ? D : D + 1;  // odd row stride: lanes reading different keys hit different banks
constexpr int BK = flash_lanes_keys(KB, DS);
threadgroup float Ks[BK * DS];
threadgroup float Vs[BK * DS];
threadgroup float P[SG * BK];
flash_lanes<D, DS, BK, QR, SG>(q, k, v, o, hq, hkv, lq, lk, causal != 0, Ks, Vs, P, threadgroup_position_in_grid,
                               thread_position_in_threadgroup.x, simdgroup_index_in_threadgroup,
                               thread_index_in_simdgroup);
