// An authorization server's signing key in memory, for the unit tests of the trusted-issuer path
// (broker_plugin/http/auth/): an RSA-2048, P-256 or Ed25519 key made with OpenSSL, its public JWK,
// and compact JWS signed with it (any header, so tests can forge alg, kid and jku). The end-to-end
// test (tests/integration/oauth_e2e.sh) checks the same verifier against Node's jose and a real
// authorization server.
#pragma once

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <memory>
#include <string>
#include <string_view>

#include "common/base/bytes.h"

namespace fleetmcp::testing {

class JwtSigner {
 public:
  // alg: "RS256", "ES256" or "EdDSA".
  JwtSigner(std::string alg, std::string kid) : alg_(std::move(alg)), kid_(std::move(kid)) {
    EVP_PKEY* key = alg_ == "RS256"   ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048})
                    : alg_ == "ES256" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                                      : EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    key_.reset(key);
  }

  const std::string& alg() const { return alg_; }
  const std::string& kid() const { return kid_; }

  // {"kty":…,"kid":…, the public parameters}
  std::string public_jwk() const {
    const std::string kid = "\"kid\":\"" + kid_ + "\"";
    if (alg_ == "RS256") {
      return "{\"kty\":\"RSA\"," + kid + ",\"n\":\"" + bn_param(OSSL_PKEY_PARAM_RSA_N) + "\",\"e\":\"" +
             bn_param(OSSL_PKEY_PARAM_RSA_E) + "\"}";
    }
    unsigned char pub[65];
    size_t len = 0;
    EVP_PKEY_get_octet_string_param(key_.get(), OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &len);
    if (alg_ == "EdDSA") return "{\"kty\":\"OKP\",\"crv\":\"Ed25519\"," + kid + ",\"x\":\"" + b64(pub, len) + "\"}";
    return "{\"kty\":\"EC\",\"crv\":\"P-256\"," + kid + ",\"x\":\"" + b64(pub + 1, 32) + "\",\"y\":\"" + b64(pub + 33, 32) +
           "\"}";
  }

  // A compact JWS of these exact header and payload texts.
  std::string sign(std::string_view header, std::string_view payload) const {
    const std::string input = b64(header) + "." + b64(payload);
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestSignInit(ctx.get(), nullptr, alg_ == "EdDSA" ? nullptr : EVP_sha256(), nullptr, key_.get());
    size_t len = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(input.data());
    EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size());
    Bytes sig(len);
    EVP_DigestSign(ctx.get(), sig.data(), &len, data, input.size());
    sig.resize(len);
    if (alg_ == "ES256") sig = raw_ecdsa(sig);
    return input + "." + base64url_encode(sig);
  }

  // A token with the usual header {"alg","typ":"at+jwt","kid"}.
  std::string token(std::string_view payload) const {
    return sign("{\"alg\":\"" + alg_ + "\",\"typ\":\"at+jwt\",\"kid\":\"" + kid_ + "\"}", payload);
  }

 private:
  static std::string b64(std::string_view text) {
    return base64url_encode(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  static std::string b64(const unsigned char* data, size_t len) { return base64url_encode(std::span(data, len)); }

  std::string bn_param(const char* name) const {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(key_.get(), name, &bn);
    Bytes bytes(static_cast<size_t>(BN_num_bytes(bn)));
    BN_bn2bin(bn, bytes.data());
    BN_free(bn);
    return base64url_encode(bytes);
  }

  // DER ECDSA-Sig-Value -> JWS's r||s.
  static Bytes raw_ecdsa(const Bytes& der) {
    const unsigned char* p = der.data();
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
    Bytes raw(64);
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), raw.data(), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), raw.data() + 32, 32);
    ECDSA_SIG_free(sig);
    return raw;
  }

  std::string alg_, kid_;
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key_{nullptr, EVP_PKEY_free};
};

}  // namespace fleetmcp::testing
