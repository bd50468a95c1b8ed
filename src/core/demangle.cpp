#include "core/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ksearch {

std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

}  // namespace ksearch
