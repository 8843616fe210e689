// Byte strings and their text encodings: lowercase hex and base64url without padding.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp {

using Bytes = std::vector<uint8_t>;

inline std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string hex_lower(std::span<const uint8_t> data);
// nullopt unless `text` is an even number of hex digits (either case).
std::optional<Bytes> hex_decode(std::string_view text);

// RFC 4648 §5 alphabet, no '=' padding (libsodium's URLSAFE_NO_PADDING variant).
std::string base64url_encode(std::span<const uint8_t> data);
// nullopt on any character outside the alphabet, on padding, or on a non-canonical tail.
std::optional<Bytes> base64url_decode(std::string_view text);

}  // namespace fleetmcp
