// attention_bf16, built-in metal template family flash_simdgroup: flash attention on simdgroup_float8x8. One
// threadgroup of SG SIMD groups per block of 8 * SG queries of a (batch, head), 8 query rows per SIMD group;
// K/V tiles staged in threadgroup memory; S = Q K^T and O += P V as 8x8 multiply-accumulates.
// Knobs: ksearch sets each knob's template directive below to the value it tries (flash_simdgroup.toml lists them).
// The grid counts threads: 32 * SG per query block, ceil(lq / (8 * SG)) blocks.
// grid: 32 * SG * ceil(lq / (8 * SG)), hq, b
// threadgroup: 32 * SG, 1, 1
// template: D = d
// template: SG = 2
// template: KB = 16
#include "../attention/flash.h"
// --- body ---
constexpr int DP = (D + 7) / 8 * 8;  // the head dimension padded with zeros to whole 8x8 blocks
constexpr int BK = flash_simdgroup_keys(KB, DP);
threadgroup float Ks[BK * DP];
threadgroup float Vs[BK * DP];
threadgroup float S[SG * 8 * BK];
threadgroup float stage[SG * 64];
flash_simdgroup<D, DP, BK, SG>(q, k, v, o, hq, hkv, lq, lk, causal != 0, Ks, Vs, S, stage, threadgroup_position_in_grid,
                               thread_position_in_threadgroup.x, simdgroup_index_in_threadgroup,
                               thread_index_in_simdgroup);
