// determinant of 2x2, 3x3 and 4x4 matrices (columns given), a product through transpose, and the 24-bit integer
// products mul24 and mad24 on signed and unsigned operands, scalar and vector.
uint i = thread_position_in_grid.x;
float x = a[i];
float2x2 m2 = float2x2(float2(x, 1.0f), float2(2.0f, x));
float3x3 m3 = float3x3(float3(x, 0.0f, 1.0f), float3(0.0f, 2.0f, 0.0f), float3(1.0f, 0.0f, x));
float4x4 m4 = float4x4(float4(x, 0.0f, 0.0f, 0.0f), float4(0.0f, 1.0f, x, 0.0f), float4(0.0f, 0.0f, 2.0f, 0.0f),
                       float4(1.0f, 0.0f, 0.0f, 3.0f));
int k = int(i) - 4;
int2 kv = mul24(int2(k, -k), int2(1000, 3));
out[4 * i + 0] = determinant(m2);
out[4 * i + 1] = determinant(m3);
out[4 * i + 2] = determinant(m4) + (transpose(m4) * m4)[0][0];
out[4 * i + 3] = float(mul24(k, 1000) + mad24(k, -3, 7) + kv.y) + float(mad24(i, 4096u, 5u) % 1000u);
