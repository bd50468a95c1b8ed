// A matrix built from one of the same size and another element type (half2x2(float2x2), float3x3(half3x3)), and
// metal_array's array<T, N>: brace-initialized, indexed, sized, passed by reference and held in a struct (the
// header's Taps and weighted()).
uint i = thread_position_in_grid.x;
float x = a[i];
float2x2 m = float2x2(float2(x, 0.1f), float2(2.0f, 3.0f));
half2x2 hm = half2x2(m);
float3x3 back = float3x3(half3x3(half3(1.0h, 2.0h, x), half3(0.0h), half3(0.5h)));
metal::array<float, 4> arr = {1.0f, 2.0f, 3.0f, x};
float sum = 0.0f;
for (uint k = 0; k < arr.size(); ++k) sum += arr[k];
Taps taps = {{0.5f, 0.25f, 1.0f}, 2.0f};
out[4 * i + 0] = float(hm[0][1]) + float(hm[1][1]);
out[4 * i + 1] = back[0][2] + back[2][0];
out[4 * i + 2] = sum + float(arr.empty()) + float(metal::array<int, 2>::size());
out[4 * i + 3] = weighted(taps.weights, x) + taps.bias;
