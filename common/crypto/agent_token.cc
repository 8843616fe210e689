#include "common/crypto/agent_token.h"

#include <optional>

#include "common/base/bytes.h"
#include "common/base/error.h"
#include "common/base/json.h"
#include "common/base/text.h"
#include "common/crypto/compact_jws.h"
#include "common/ids/ulid.h"

namespace fleetmcp {
namespace {

// The only header we issue and the only algorithm we accept (no "none", no HMAC confusion).
constexpr std::string_view kHeader = R"({"alg":"EdDSA","typ":"JWT"})";
constexpr size_t kMaxTokenBytes = 8192;  // bounds the work an unauthenticated caller can cause
constexpr std::string_view kFix = "ask the fleet operator for a new token (fleetctl token issue)";

// Every refusal says what is wrong in our own words; nothing from the token is echoed back,
// because tokens are secrets and their contents are attacker-controlled.
ErrorEnvelope refuse(std::string_view why) {
  return ErrorEnvelope(ErrorCode::kSafetyDenied, "agent token refused: " + std::string(why), kFix);
}

std::string join_scopes(const AgentToken& claims) {
  std::string scope;
  for (const auto& s : claims.scopes) scope += (scope.empty() ? "" : " ") + s;
  return scope;
}

std::string claims_json(const AgentToken& c) {
  json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("sub", json::string_value(c.sub, a), a);
  doc.AddMember("tenant", json::string_value(c.tenant, a), a);
  doc.AddMember("scope", json::string_value(join_scopes(c), a), a);
  doc.AddMember("aud", json::string_value(c.aud, a), a);
  doc.AddMember("iat", json::Value(c.iat), a);
  doc.AddMember("exp", json::Value(c.exp), a);
  doc.AddMember("jti", json::string_value(c.jti, a), a);
  return json::to_string(doc);
}

Result<json::Document> decode_segment(std::string_view segment, std::string_view what) {
  auto doc = jws::decode_object(segment, {.max_bytes = kMaxTokenBytes, .max_depth = 4});
  if (doc) return std::move(*doc);
  switch (doc.error()) {
    case jws::SegmentFault::kNotBase64url: return refuse(std::string(what) + " is not base64url");
    case jws::SegmentFault::kNotJson: return refuse(std::string(what) + " is not valid JSON");
    case jws::SegmentFault::kNotObject: break;
  }
  return refuse(std::string(what) + " is not a JSON object");
}

Status check_header(const json::Value& header) {
  if (json::get_string(header, "alg") != std::optional<std::string_view>("EdDSA")) return refuse("alg must be EdDSA");
  if (const auto* typ = json::find(header, "typ"); typ && !(typ->IsString() && std::string_view(typ->GetString()) == "JWT")) {
    return refuse("typ must be JWT");
  }
  // RFC 7515 §4.1.11: a critical extension we do not understand means we must reject.
  if (json::find(header, "crit")) return refuse("critical header extensions are not supported");
  return {};
}

Result<std::string_view> require_string(const json::Value& claims, std::string_view key) {
  const auto v = json::get_string(claims, key);
  if (!v || v->empty()) return refuse("claim " + std::string(key) + " is missing or not a non-empty string");
  return *v;
}

Result<int64_t> require_int(const json::Value& claims, std::string_view key) {
  const auto v = json::get_int64(claims, key);
  if (!v) return refuse("claim " + std::string(key) + " is missing or not an integer");
  return *v;
}

// A ULID in either case, as fleetctl issues them (the revocation list compares them lowercase).
bool is_jti(std::string_view jti) { return is_node_id(jti) || is_msg_id(jti); }

Result<AgentToken> read_claims(const json::Value& claims) {
  AgentToken t;
  for (auto [key, field] : {std::pair{"sub", &t.sub}, {"tenant", &t.tenant}, {"aud", &t.aud}, {"jti", &t.jti}}) {
    const auto value = require_string(claims, key);
    if (!value) return value.error();
    *field = *value;
  }
  // The revocation list names tokens by jti, and holds only ULIDs (fleetctl pki revoke): a token
  // with any other jti could never be revoked.
  if (!is_jti(t.jti)) return refuse("claim jti is not a ULID, so the token could never be revoked");
  for (auto [key, field] : {std::pair{"iat", &t.iat}, {"exp", &t.exp}}) {
    const auto value = require_int(claims, key);
    if (!value) return value.error();
    *field = *value;
  }
  const auto scope = require_string(claims, "scope");
  if (!scope) return scope.error();
  for (auto one : split(*scope, ' ')) {
    if (!one.empty()) t.scopes.emplace(one);
  }
  return t;
}

Status check_times(const AgentToken& t, int64_t now_s, int64_t leeway_s) {
  // Bounding the claims first keeps the arithmetic below free of overflow.
  constexpr int64_t kYear9999 = 253402300799;
  if (t.iat < 0 || t.exp > kYear9999) return refuse("iat or exp out of range");
  if (t.exp <= t.iat) return refuse("exp is not after iat");
  if (now_s >= t.exp + leeway_s) return refuse("token has expired");
  if (t.iat > now_s + leeway_s) return refuse("token is issued in the future (check the clocks)");
  return {};
}

// The three parts of a compact JWS of bounded size.
Result<jws::CompactParts> jws_parts(std::string_view token) {
  if (token.size() > kMaxTokenBytes) return refuse("token is too long");
  auto parts = jws::split(token);
  if (!parts) return refuse("not a compact JWS (three dot-separated parts)");
  return *parts;
}

}  // namespace

Result<std::string> issue_agent_token(const AgentToken& claims, const Ed25519PrivateKey& issuer) {
  if (claims.sub.empty() || claims.tenant.empty() || claims.aud.empty() || claims.jti.empty() ||
      claims.scopes.empty()) {
    return ErrorEnvelope(ErrorCode::kBadRequest, "an agent token needs sub, tenant, aud, jti and at least one scope",
                         "fill in every claim");
  }
  if (claims.exp <= claims.iat) return ErrorEnvelope(ErrorCode::kBadRequest, "token exp must be after iat", "use a positive ttl");
  if (!is_jti(claims.jti)) return ErrorEnvelope(ErrorCode::kBadRequest, "token jti must be a ULID", "use new_msg_id()");
  const std::string signing_input = base64url_encode(as_bytes(kHeader)) + "." + base64url_encode(as_bytes(claims_json(claims)));
  return signing_input + "." + base64url_encode(issuer.sign(signing_input));
}

Result<std::string> unverified_subject(std::string_view token) {
  const auto parts = jws_parts(token);
  if (!parts) return parts.error();
  const auto claims = decode_segment(parts->payload, "claims");
  if (!claims) return claims.error();
  const auto sub = require_string(*claims, "sub");
  if (!sub) return sub.error();
  return std::string(*sub);
}

Result<AgentToken> verify_agent_token(std::string_view token, const Ed25519PublicKey& issuer, std::string_view expected_aud,
                                      int64_t now_s, int64_t leeway_s) {
  const auto parts = jws_parts(token);
  if (!parts) return parts.error();
  const auto header = decode_segment(parts->header, "header");
  if (!header) return header.error();
  if (auto checked = check_header(*header); !checked) return std::move(checked).error();
  const auto sig = base64url_decode(parts->signature);
  if (!sig || !ed25519_verify(issuer, parts->signing_input, *sig)) return refuse("signature does not verify with the issuer key");
  // Only now, with the issuer's signature checked, are the claims worth reading.
  const auto claims = decode_segment(parts->payload, "claims");
  if (!claims) return claims.error();
  auto t = read_claims(*claims);
  if (!t) return t;
  if (auto checked = check_times(*t, now_s, leeway_s); !checked) return std::move(checked).error();
  if (!expected_aud.empty() && t->aud != expected_aud) return refuse("wrong audience");
  return t;
}

}  // namespace fleetmcp
