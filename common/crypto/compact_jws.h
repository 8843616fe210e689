// The one reader of a JWS in compact serialization (RFC 7515 §7.1), for both token verifiers:
// fleetctl's agent tokens (agent_token.h) and external issuers' access tokens
// (broker_plugin/http/auth/issuer_token.h). It splits and decodes; it checks no signature and no
// claim. Each verifier words its own refusals (tokens are secrets: no message here quotes one).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::jws {

// The largest token either verifier reads (an identity provider's may carry many claims); each
// verifier may take less (fleetctl tokens: 8 KiB).
inline constexpr size_t kMaxTokenBytes = 16 * 1024;

// The three base64url parts of a token, not decoded; views into the token.
struct CompactParts {
  std::string_view header, payload, signature;
  std::string_view signing_input;  // "<header>.<payload>": what the signature covers
};

// Exactly three dot-separated parts, or nullopt.
std::optional<CompactParts> split(std::string_view token);

// Why one part is not a JSON object.
enum class SegmentFault { kNotBase64url, kNotJson, kNotObject };

// One part decoded from base64url and parsed as strict JSON (common/base/json.h) within `limits`;
// it must be an object.
Result<json::Document, SegmentFault> decode_object(std::string_view part, json::ParseLimits limits);

// The payload's string "iss" read WITHOUT any check, only to choose which issuer's rules verify
// the token (fleetctl tokens have none): never a basis for a decision. nullopt when the token is
// over kMaxTokenBytes, not three parts, its payload not a JSON object, or its iss not a string.
std::optional<std::string> unverified_issuer(std::string_view token);

}  // namespace fleetmcp::jws
