#include "common/base/bytes.h"

#include <sodium.h>

namespace fleetmcp {

// libsodium's codecs are constant-time and already strict: with no `ignore` set and no end pointer
// requested, they fail on any character outside the alphabet, on trailing input, on an odd number
// of hex digits, and (base64) on a final group whose unused bits are not zero. That is exactly the
// "canonical encodings only" rule we want for signatures and tokens, so we only add the sizes.

std::string hex_lower(std::span<const uint8_t> data) {
  std::string out(data.size() * 2 + 1, '\0');  // +1: sodium_bin2hex writes a terminating NUL
  sodium_bin2hex(out.data(), out.size(), data.data(), data.size());
  out.pop_back();
  return out;
}

std::optional<Bytes> hex_decode(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  Bytes out(text.size() / 2);
  if (text.empty()) return out;
  size_t len = 0;
  if (sodium_hex2bin(out.data(), out.size(), text.data(), text.size(), nullptr, &len, nullptr) != 0 ||
      len != out.size()) {
    return std::nullopt;
  }
  return out;
}

std::string base64url_encode(std::span<const uint8_t> data) {
  constexpr int kVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_encoded_len(data.size(), kVariant), '\0');  // includes the NUL
  sodium_bin2base64(out.data(), out.size(), data.data(), data.size(), kVariant);
  out.pop_back();
  return out;
}

std::optional<Bytes> base64url_decode(std::string_view text) {
  Bytes out(text.size() * 3 / 4 + 1);
  if (text.empty()) return Bytes{};
  size_t len = 0;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &len, nullptr,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

}  // namespace fleetmcp
