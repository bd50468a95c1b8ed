#pragma once
// core/hash: content hashes, the keys of every cache.
#include <string>
#include <string_view>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Hex SHA-256 of a byte string; used as the key of every content-addressed cache.
std::string sha256_hex(std::string_view data);

}  // namespace ksearch
