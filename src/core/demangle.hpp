#pragma once
// core/demangle: C++ symbol names as source writes them, for messages about compiled objects.
#include <string>

namespace ksearch {

// `_ZN2ns5countE` -> `ns::count`; a C name, or one that does not demangle, as it is (`t` would otherwise read as the
// type unsigned short).
std::string demangle(const std::string& name);

}  // namespace ksearch
