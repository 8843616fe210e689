#include "broker_plugin/http/surface/list_cursor.h"

#include <sodium.h>

#include <stdexcept>

#include "common/base/bytes.h"

namespace fleetmcp::http {
namespace {

constexpr size_t kMacBytes = 16;  // a truncated HMAC-SHA-512-256 is plenty for a cursor

std::array<unsigned char, crypto_auth_BYTES> mac(const std::array<unsigned char, 32>& key,
                                                 std::string_view context, std::string_view item) {
  std::string message(context);
  message += '\0';
  message.append(item);
  std::array<unsigned char, crypto_auth_BYTES> out{};
  crypto_auth(out.data(), reinterpret_cast<const unsigned char*>(message.data()), message.size(), key.data());
  return out;
}

}  // namespace

CursorCodec::CursorCodec() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  crypto_auth_keygen(key_.data());
}

std::string CursorCodec::encode(std::string_view context, std::string_view last_item) const {
  const auto tag = mac(key_, context, last_item);
  std::string raw(reinterpret_cast<const char*>(tag.data()), kMacBytes);
  raw.append(last_item);
  return base64url_encode(as_bytes(raw));
}

std::optional<std::string> CursorCodec::decode(std::string_view context, std::string_view cursor) const {
  const auto raw = base64url_decode(cursor);
  if (!raw || raw->size() < kMacBytes) return std::nullopt;
  const std::string item(raw->begin() + kMacBytes, raw->end());
  const auto tag = mac(key_, context, item);
  if (sodium_memcmp(tag.data(), raw->data(), kMacBytes) != 0) return std::nullopt;
  return item;
}

Result<std::optional<std::string>> CursorCodec::last_item(std::string_view context, const json::Value* cursor) const {
  const auto invalid = [](std::string_view what) {
    return ErrorEnvelope(ErrorCode::kBadRequest, what, "call tools/list without a cursor, or with the last nextCursor");
  };
  if (cursor == nullptr) return std::optional<std::string>();
  if (!cursor->IsString()) return invalid("cursor must be a string");
  auto item = decode(context, std::string_view(cursor->GetString(), cursor->GetStringLength()));
  if (!item) return invalid("the cursor is not one this server issued");
  return item;
}

}  // namespace fleetmcp::http
