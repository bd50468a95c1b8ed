// expect: header line 3: namespace std does not exist in Metal
// The host's standard library, reached through a using-directive.
using namespace std;
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i];
