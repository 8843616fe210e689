#include "common/crypto/compact_jws.h"

#include "common/base/bytes.h"

namespace fleetmcp::jws {

std::optional<CompactParts> split(std::string_view token) {
  const size_t a = token.find('.');
  const size_t b = a == std::string_view::npos ? a : token.find('.', a + 1);
  if (b == std::string_view::npos || token.find('.', b + 1) != std::string_view::npos) return std::nullopt;
  return CompactParts{.header = token.substr(0, a),
                      .payload = token.substr(a + 1, b - a - 1),
                      .signature = token.substr(b + 1),
                      .signing_input = token.substr(0, b)};
}

Result<json::Document, SegmentFault> decode_object(std::string_view part, json::ParseLimits limits) {
  const auto bytes = base64url_decode(part);
  if (!bytes) return SegmentFault::kNotBase64url;
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  // The parser's message may quote the token: only the fault travels on.
  auto doc = json::parse_strict(text, ErrorCode::kSafetyDenied, limits);
  if (!doc) return SegmentFault::kNotJson;
  if (!doc->IsObject()) return SegmentFault::kNotObject;
  return std::move(*doc);
}

std::optional<std::string> unverified_issuer(std::string_view token) {
  if (token.size() > kMaxTokenBytes) return std::nullopt;
  const auto parts = split(token);
  if (!parts) return std::nullopt;
  const auto claims = decode_object(parts->payload, {.max_bytes = kMaxTokenBytes, .max_depth = 8});
  if (!claims) return std::nullopt;
  const auto iss = json::get_string(*claims, "iss");
  if (!iss) return std::nullopt;
  return std::string(*iss);
}

}  // namespace fleetmcp::jws
