// expect: passes
// Names of MLX's prelude (utils.h and the headers it includes), which every custom kernel's source starts with on a
// Mac: WorkPerThread, ConditionalType, cast_to, the bfloat bit helpers, defines.h's constants and MTL_CONST, and
// mlx::os_log.
static MTL_CONST constexpr int kReads = SOFTMAX_N_READS + RMS_N_READS - REDUCE_N_READS;
constant mlx::os_log logger("ksearch", "prelude");
// --- body ---
uint i = thread_position_in_grid.x;
logger.log_debug("thread %u", i);
typename ConditionalType<(kReads == 4), float, int>::type x = a[i];
bool nonzero = cast_to<bool>(x) && !cast_to<bool>(-0.0f) && cast_to<int>(2.5f) == 2;
bool bits = bfloat16_to_uint16(uint16_to_bfloat16(0x3f80)) == 0x3f80 && float(uint16_to_bfloat16(0x4000)) == 2.0f;
o[i] = (bits && WorkPerThread<half>::n == 4 && WorkPerThread<float>::n == 2 && (nonzero || x == 0.0f)) ? 2.0f * x : -1.0f;
