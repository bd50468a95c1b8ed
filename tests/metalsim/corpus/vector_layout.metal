// The sizes and alignments of vector types as Metal lays them out (Metal Shading Language specification,
// "Vector data types": three components take the room of four; packed types take their components only).
uint i = thread_position_in_grid.x;
if (i != 0) return;
out[0] = sizeof(half2);
out[1] = sizeof(half3);
out[2] = sizeof(half4);
out[3] = sizeof(bool2);
out[4] = sizeof(bool3);
out[5] = sizeof(bool4);
out[6] = sizeof(bfloat3);
out[7] = sizeof(float3);
out[8] = sizeof(short3);
out[9] = sizeof(char3);
out[10] = sizeof(packed_half3);
out[11] = sizeof(packed_float3);
out[12] = alignof(half3);
out[13] = alignof(bool3);
out[14] = alignof(float3);
out[15] = alignof(packed_float3);
