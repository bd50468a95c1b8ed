// expect: body line 2: namespace std does not exist in Metal
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i] + 0.0f * std::numeric_limits<float>::max();
