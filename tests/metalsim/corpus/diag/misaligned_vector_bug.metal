// BUG: float4 loads from one element past the buffer's start: every address is 4 bytes off a 16-byte boundary.
uint i = thread_position_in_grid.x;
const device float4* quads = (const device float4*)(a + 1);
out[i] = i < 15 ? quads[i].x + quads[i].w : 0.0f;
