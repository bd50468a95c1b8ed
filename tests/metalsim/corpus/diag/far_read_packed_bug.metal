// BUG: packed_float3 rows read 50 million rows past the input.
uint i = thread_position_in_grid.x;
const device packed_float3* rows = (const device packed_float3*)a;
packed_float3 row = rows[i + 50000000u];
out[i] = row[0] + row[1] + row[2];
