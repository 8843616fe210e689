#include "broker_plugin/http/auth/jwks.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <utility>

#include "common/base/bytes.h"
#include "common/base/json.h"

namespace fleetmcp::http {
namespace {

constexpr size_t kMaxJwksBytes = 256 * 1024;

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using Bignum = std::unique_ptr<BIGNUM, Freer<BIGNUM, BN_free>>;
using ParamBuild = std::unique_ptr<OSSL_PARAM_BLD, Freer<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Freer<OSSL_PARAM, OSSL_PARAM_free>>;
using KeyContext = std::unique_ptr<EVP_PKEY_CTX, Freer<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using DigestContext = std::unique_ptr<EVP_MD_CTX, Freer<EVP_MD_CTX, EVP_MD_CTX_free>>;
using EcdsaSig = std::unique_ptr<ECDSA_SIG, Freer<ECDSA_SIG, ECDSA_SIG_free>>;

ErrorEnvelope bad(std::string_view what) {
  return ErrorEnvelope(ErrorCode::kBadRequest, "JWKS: " + std::string(what),
                       "the issuer's jwks_uri must serve RFC 7517 keys (RSA, EC P-256 or Ed25519)");
}

Result<Bytes> member_bytes(const json::Value& jwk, std::string_view name) {
  const auto text = json::get_string(jwk, name);
  if (!text) return bad("a key has no '" + std::string(name) + "'");
  auto bytes = base64url_decode(*text);
  if (!bytes || bytes->empty()) return bad("a key's '" + std::string(name) + "' is not base64url");
  return std::move(*bytes);
}

// Two members of a key, both base64url: RSA's n and e, EC's x and y.
Result<std::pair<Bytes, Bytes>> member_pair(const json::Value& jwk, std::string_view first, std::string_view second) {
  auto a = member_bytes(jwk, first);
  if (!a) return std::move(a).error();
  auto b = member_bytes(jwk, second);
  if (!b) return std::move(b).error();
  return std::pair{std::move(*a), std::move(*b)};
}

// EVP_PKEY_fromdata: OpenSSL builds (and for EC, checks the point of) the public key.
Result<std::shared_ptr<EVP_PKEY>> from_params(const char* type, OSSL_PARAM_BLD* build) {
  Params params(OSSL_PARAM_BLD_to_param(build));
  KeyContext ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return bad(std::string("a ") + type + " key is not a valid public key");
  }
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

Result<std::shared_ptr<EVP_PKEY>> rsa_key(const json::Value& jwk) {
  auto members = member_pair(jwk, "n", "e");
  if (!members) return std::move(members).error();
  const auto& [n, e] = *members;
  if (n.size() < 256) return bad("an RSA key is shorter than 2048 bits");
  Bignum bn_n(BN_bin2bn(n.data(), static_cast<int>(n.size()), nullptr));
  Bignum bn_e(BN_bin2bn(e.data(), static_cast<int>(e.size()), nullptr));
  ParamBuild build(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !build || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return bad("an RSA key could not be read");
  }
  return from_params("RSA", build.get());
}

Result<std::shared_ptr<EVP_PKEY>> p256_key(const json::Value& jwk) {
  if (json::get_string(jwk, "crv") != std::optional<std::string_view>("P-256")) return bad("only EC keys on P-256");
  auto members = member_pair(jwk, "x", "y");
  if (!members) return std::move(members).error();
  const auto& [x, y] = *members;
  if (x.size() != 32 || y.size() != 32) return bad("a P-256 key's x or y is not 32 bytes");
  Bytes point{0x04};  // SEC 1 uncompressed point
  point.insert(point.end(), x.begin(), x.end());
  point.insert(point.end(), y.begin(), y.end());
  ParamBuild build(OSSL_PARAM_BLD_new());
  if (!build || OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1) {
    return bad("an EC key could not be read");
  }
  return from_params("EC", build.get());
}

Result<std::shared_ptr<EVP_PKEY>> ed25519_key(const json::Value& jwk) {
  if (json::get_string(jwk, "crv") != std::optional<std::string_view>("Ed25519")) return bad("only OKP keys on Ed25519");
  auto x = member_bytes(jwk, "x");
  if (!x) return std::move(x).error();
  if (x->size() != 32) return bad("an Ed25519 key is not 32 bytes");
  ParamBuild build(OSSL_PARAM_BLD_new());
  if (!build || OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, x->data(), x->size()) != 1) {
    return bad("an Ed25519 key could not be read");
  }
  return from_params("ED25519", build.get());
}

// The algorithm a key of this type verifies, or "" for one we do not use.
std::string_view algorithm_of(std::string_view kty, std::optional<std::string_view> alg) {
  std::string_view ours;
  if (kty == "RSA") ours = "RS256";
  if (kty == "EC") ours = "ES256";
  if (kty == "OKP") ours = "EdDSA";
  // A key that declares another algorithm (PS256, RS512, ES384 …) is for that one only.
  if (alg && *alg != ours) return "";
  return ours;
}

// JWS ES256 signs with r||s (32 bytes each); OpenSSL verifies DER.
std::optional<Bytes> ecdsa_der(std::span<const uint8_t> raw) {
  if (raw.size() != 64) return std::nullopt;
  EcdsaSig sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(raw.data(), 32, nullptr);
  BIGNUM* s = BN_bin2bn(raw.data() + 32, 32, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int n = i2d_ECDSA_SIG(sig.get(), &der);
  if (n <= 0) return std::nullopt;
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

}  // namespace

bool VerifyKey::verifies(std::string_view signed_bytes, std::span<const uint8_t> signature) const {
  const EVP_MD* digest = alg == "EdDSA" ? nullptr : EVP_sha256();
  std::optional<Bytes> der;
  if (alg == "ES256") {
    der = ecdsa_der(signature);
    if (!der) return false;
    signature = *der;
  }
  DigestContext ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_bytes.data()), signed_bytes.size()) == 1;
}

Result<std::vector<VerifyKey>> parse_jwks(std::string_view json_text) {
  auto doc = json::parse_strict(json_text, ErrorCode::kBadRequest, {.max_bytes = kMaxJwksBytes, .max_depth = 8});
  if (!doc) return bad("not valid JSON");
  const json::Value* keys = doc->IsObject() ? json::find(*doc, "keys") : nullptr;
  if (!keys || !keys->IsArray()) return bad("no 'keys' array");
  std::vector<VerifyKey> out;
  for (const json::Value& jwk : keys->GetArray()) {
    if (!jwk.IsObject()) return bad("a key is not an object");
    if (const auto use = json::get_string(jwk, "use"); use && *use != "sig") continue;
    const std::string_view alg = algorithm_of(json::get_string(jwk, "kty").value_or(""), json::get_string(jwk, "alg"));
    const auto crv = json::get_string(jwk, "crv");
    if (alg.empty() || (alg == "ES256" && crv != "P-256") || (alg == "EdDSA" && crv != "Ed25519")) continue;
    auto key = alg == "RS256" ? rsa_key(jwk) : alg == "ES256" ? p256_key(jwk) : ed25519_key(jwk);
    if (!key) return std::move(key).error();
    out.push_back(VerifyKey{std::string(json::get_string(jwk, "kid").value_or("")), std::string(alg), std::move(*key)});
  }
  return out;
}

}  // namespace fleetmcp::http
