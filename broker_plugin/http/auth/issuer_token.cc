#include "broker_plugin/http/auth/issuer_token.h"

#include <algorithm>
#include <array>

#include "common/base/bytes.h"
#include "common/base/error.h"
#include "common/base/json.h"
#include "common/base/text.h"
#include "common/ids/tenant.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kFix =
    "sign in again through the authorization server docs/authorization.md names, asking for this resource";

ErrorEnvelope refuse(std::string_view why) {
  return ErrorEnvelope(ErrorCode::kSafetyDenied, "access token refused: " + std::string(why), kFix);
}

struct Jws {
  std::string_view signed_bytes;  // "<header>.<payload>"
  json::Document header, claims;
  Bytes signature;
};

Result<json::Document> segment(std::string_view part, std::string_view what) {
  auto doc = jws::decode_object(part, {.max_bytes = kMaxIssuerTokenBytes, .max_depth = 8});
  if (doc) return std::move(*doc);
  if (doc.error() == jws::SegmentFault::kNotBase64url) return refuse(std::string(what) + " is not base64url");
  return refuse(std::string(what) + " is not a JSON object");
}

Result<Jws> split_jws(std::string_view token) {
  if (token.size() > kMaxIssuerTokenBytes) return refuse("longer than 16 KiB");
  const auto parts = jws::split(token);
  if (!parts) return refuse("not a compact JWS (three dot-separated parts)");
  Jws jws;
  jws.signed_bytes = parts->signing_input;
  auto header = segment(parts->header, "header");
  if (!header) return std::move(header).error();
  auto claims = segment(parts->payload, "payload");
  if (!claims) return std::move(claims).error();
  auto signature = base64url_decode(parts->signature);
  if (!signature) return refuse("signature is not base64url");
  jws.header = std::move(*header);
  jws.claims = std::move(*claims);
  jws.signature = std::move(*signature);
  return jws;
}

Status check_header(const json::Value& header) {
  // RFC 8725 §3.10: never fetch or trust a key the token itself points at.
  for (std::string_view named : {"jku", "x5u", "jwk", "x5c"}) {
    if (json::find(header, named)) {
      return refuse("the header names a key (" + std::string(named) + "); keys come only from the issuer's JWKS");
    }
  }
  if (json::find(header, "crit")) return refuse("critical header extensions are not supported");
  const auto alg = json::get_string(header, "alg");
  if (!alg) return refuse("the header has no alg");
  if (*alg == "none") return refuse("alg none is not accepted");
  return {};
}

Status check_times(const json::Value& claims, int64_t now_s) {
  const auto exp = json::get_int64(claims, "exp");
  if (!exp) return refuse("claim exp is missing or not an integer");
  if (now_s > *exp + kIssuerTokenLeewayS) return refuse("the token has expired (exp)");
  if (json::find(claims, "nbf")) {
    const auto nbf = json::get_int64(claims, "nbf");
    if (!nbf) return refuse("claim nbf is not an integer");
    if (*nbf > now_s + kIssuerTokenLeewayS) return refuse("the token is not valid yet (nbf)");
  }
  if (json::find(claims, "iat")) {
    const auto iat = json::get_int64(claims, "iat");
    if (!iat) return refuse("claim iat is not an integer");
    if (*iat > now_s + kIssuerTokenLeewayS) return refuse("the token was issued in the future (iat)");
  }
  return {};
}

// RFC 7519 §4.1.3: a string or an array of strings; ours must be among them.
Status check_audience(const json::Value& claims, std::string_view audience) {
  const json::Value* aud = json::find(claims, "aud");
  bool named = false;
  if (aud && aud->IsString()) named = audience == aud->GetString();
  if (aud && aud->IsArray()) {
    for (const auto& a : aud->GetArray()) named = named || (a.IsString() && audience == a.GetString());
  }
  if (!named) return refuse("the audience (aud) does not name this resource " + ascii_clamp(audience, 200));
  return {};
}

// Their names (a space-separated string, or an array: Entra's "scp", Okta's "scp") mapped to ours.
void add_scopes(const json::Value& claims, const TrustedIssuer& issuer, AgentToken& out) {
  std::vector<std::string> granted;
  const json::Value* claim = json::find(claims, issuer.scope_claim);
  if (claim && claim->IsString()) {
    for (std::string_view word : split_words(claim->GetString())) granted.emplace_back(word);
  }
  if (claim && claim->IsArray()) {
    for (const auto& s : claim->GetArray()) {
      if (s.IsString()) granted.emplace_back(s.GetString());
    }
  }
  for (const std::string& theirs : granted) {
    if (issuer.scopes.empty()) {
      for (std::string_view ours : {kScopeDevicesRead, kScopeCallReadOnly, kScopeCallReversible, kScopeCallPhysical}) {
        if (theirs == ours) out.scopes.emplace(ours);
      }
      continue;
    }
    for (const auto& [name, ours] : issuer.scopes) {
      if (theirs == name) out.scopes.insert(ours);
    }
  }
}

Result<AgentToken> mapped_claims(const json::Value& claims, const TrustedIssuer& issuer, std::string_view audience) {
  AgentToken out;
  out.iss = issuer.issuer;
  out.aud = std::string(audience);
  const auto sub = json::get_string(claims, issuer.subject_claim);
  if (!sub || sub->empty()) return refuse("the subject claim " + issuer.subject_claim + " is missing");
  out.sub = std::string(*sub);
  if (!issuer.tenant.empty()) {
    out.tenant = issuer.tenant;
  } else {
    const auto tenant = json::get_string(claims, issuer.tenant_claim);
    if (!tenant || !is_tenant_name(*tenant)) {
      return refuse("the tenant claim " + issuer.tenant_claim + " is missing or not a tenant name");
    }
    out.tenant = std::string(*tenant);
  }
  out.jti = std::string(json::get_string(claims, "jti").value_or(""));
  out.exp = *json::get_int64(claims, "exp");
  out.iat = json::get_int64(claims, "iat").value_or(0);
  add_scopes(claims, issuer, out);
  return out;
}

}  // namespace

Result<AgentToken> verify_issuer_token(std::string_view token, const TrustedIssuer& issuer, std::string_view audience,
                                       const KeyFinder& keys, int64_t now_s) {
  auto jws = split_jws(token);
  if (!jws) return std::move(jws).error();
  if (Status header = check_header(jws->header); !header) return header.error();
  const std::string_view alg = *json::get_string(jws->header, "alg");
  const json::Value* kid = json::find(jws->header, "kid");
  if (kid && !kid->IsString()) return refuse("the header's kid is not a string");
  auto key = keys(kid ? std::string_view(kid->GetString()) : std::string_view(), alg);
  if (!key) return std::move(key).error();
  // The key decides the algorithm (RFC 8725 §3.1): HS256 "signed" with the public key never gets here.
  if (alg != key->alg) {
    return refuse("alg " + ascii_clamp(alg, 16) + " is not the algorithm of the issuer's key (" + key->alg + ")");
  }
  if (!key->verifies(jws->signed_bytes, jws->signature)) return refuse("the signature does not verify");
  if (json::get_string(jws->claims, "iss") != std::optional<std::string_view>(issuer.issuer)) {
    return refuse("the issuer (iss) is not " + issuer.issuer);
  }
  if (Status times = check_times(jws->claims, now_s); !times) return times.error();
  if (Status aud = check_audience(jws->claims, audience); !aud) return aud.error();
  return mapped_claims(jws->claims, issuer, audience);
}

}  // namespace fleetmcp::http
