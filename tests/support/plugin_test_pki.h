// A throw-away fleet PKI made in memory with OpenSSL, for tests of the broker plugin: an Ed25519
// root CA, node leaf certificates (CN=<node_id>, O=<tenant>), the agent-token issuer key, and
// signed manifests built with common/protocol/manifest.h. Header-only so unit tests and the test programs
// under tests/programs/ share it without a library of their own.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/crypto/agent_token.h"
#include "common/crypto/ed25519.h"
#include "common/protocol/manifest.h"
#include "common/ids/ulid.h"
#include "common/crypto/x509.h"

namespace fleetmcp::testing {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

inline PkeyPtr new_ed25519_key() {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  EVP_PKEY* key = nullptr;
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_keygen(ctx, &key) <= 0) {
    EVP_PKEY_CTX_free(ctx);
    throw std::runtime_error("Ed25519 key generation failed");
  }
  EVP_PKEY_CTX_free(ctx);
  return PkeyPtr(key);
}

inline Ed25519PrivateKey signing_key_of(EVP_PKEY* key) {
  std::array<uint8_t, 32> seed{};
  size_t len = seed.size();
  if (EVP_PKEY_get_raw_private_key(key, seed.data(), &len) != 1 || len != 32) {
    throw std::runtime_error("cannot read the Ed25519 seed");
  }
  return Ed25519PrivateKey::from_seed(seed);
}

inline X509Ptr make_certificate(EVP_PKEY* subject_key, const std::string& cn, const std::string& o, X509* issuer,
                                EVP_PKEY* issuer_key, bool is_ca, long valid_from_s = -3600,
                                long valid_until_s = 86400L * 30) {
  static long serial = 1;
  X509Ptr x(X509_new());
  X509_set_version(x.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), valid_from_s);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), valid_until_s);
  X509_set_pubkey(x.get(), subject_key);
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  if (!o.empty()) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  X509_set_issuer_name(x.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x.get(), x.get(), nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE");
  X509_add_ext(x.get(), ext, -1);
  X509_EXTENSION_free(ext);
  if (X509_sign(x.get(), issuer_key, nullptr) <= 0) throw std::runtime_error("X509_sign failed");
  return x;
}

struct TestNode {
  std::string node_id, tenant;
  PkeyPtr key;
  X509Ptr x509;
  Certificate certificate;
  Ed25519PrivateKey signing_key;
};

class TestPki {
 public:
  TestPki()
      : ca_key_(new_ed25519_key()),
        ca_x509_(make_certificate(ca_key_.get(), "fleetmcp test CA", "fleet", nullptr, ca_key_.get(), true)),
        ca_(Certificate::from_x509(ca_x509_.get())),
        issuer_(Ed25519PrivateKey::generate()) {}

  const Certificate& ca() const { return ca_; }
  const Ed25519PrivateKey& issuer() const { return issuer_; }

  // A node certificate from this CA (or from `other_ca` to make a foreign one).
  std::shared_ptr<TestNode> enroll(const std::string& tenant, std::string node_id = new_node_id(),
                                   const std::string& cn_override = "") const {
    auto node = std::make_shared<TestNode>(TestNode{node_id, tenant, new_ed25519_key(), nullptr,
                                                    Certificate(), Ed25519PrivateKey::generate()});
    node->x509 = make_certificate(node->key.get(), cn_override.empty() ? node_id : cn_override, tenant,
                                  ca_x509_.get(), ca_key_.get(), false);
    node->certificate = Certificate::from_x509(node->x509.get());
    node->signing_key = signing_key_of(node->key.get());
    return node;
  }

  std::string token(const std::string& sub, const std::string& tenant, std::set<std::string, std::less<>> scopes,
                    int64_t exp_s, const std::string& aud = "fleetmcp", std::string jti = new_node_id()) const {
    AgentToken t;
    t.sub = sub;
    t.tenant = tenant;
    t.aud = aud;
    t.jti = std::move(jti);
    t.scopes = std::move(scopes);
    t.iat = std::min<int64_t>(now_ms() / 1000 - 10, exp_s - 60);  // an expired token was once valid
    t.exp = exp_s;
    return issue_agent_token(t, issuer_);
  }

 private:
  PkeyPtr ca_key_;
  X509Ptr ca_x509_;
  Certificate ca_;
  Ed25519PrivateKey issuer_;
};

// The mock device's manifest (RFC-0005 §9 echo, RFC-0001 metrics), for `node`.
inline ManifestContent example_content(const TestNode& node, int64_t issued_at_ms, int64_t ttl_ms = 3'600'000) {
  ManifestContent c;
  c.node_id = node.node_id;
  c.hw_sources = {{"machine_id", "test-" + node.node_id}};
  c.kid = node.certificate.thumbprint();
  c.issued_at_ms = issued_at_ms;
  c.expires_at_ms = issued_at_ms + ttl_ms;
  Capability echo;
  echo.cap_id = "echo";
  echo.kind = "system.echo";
  echo.schema_ref = "mcp://schemas/system.echo.invoke.input@1.0.0";
  echo.verbs = {"invoke"};
  echo.constraints = {10, 4, 2000};
  Capability metrics;
  metrics.cap_id = "metrics";
  metrics.kind = "system.metrics";
  metrics.schema_ref = "mcp://schemas/system.metrics@1.0.0";
  metrics.verbs = {"snapshot", "subscribe"};
  metrics.constraints = {5, 2, 2000};
  c.capabilities = {echo, metrics};
  return c;
}

inline std::string signed_manifest(const TestNode& node, const ManifestContent& content) {
  json::Document doc = build_manifest(content);
  return sign_manifest(doc, node.signing_key);
}

}  // namespace fleetmcp::testing
