// BUG: float4 loads 50 million vectors past the input, as one 16-byte read each.
uint i = thread_position_in_grid.x;
const device float4* quads = (const device float4*)a;
float4 q = quads[i + 50000000u];
out[i] = q.x * q.y + q.z * q.w;
