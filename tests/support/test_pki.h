// The one test PKI (issue 25 step 6): a throw-away fleet made in memory with OpenSSL for unit tests,
// fuzz targets, test programs and benchmarks. An Ed25519 root CA, node certificates (CN=<node_id>,
// O=<tenant>) with the extensions `fleetctl pki` writes (basic constraints, key usage, subject and
// authority key ids), the variants tests need (expired, not yet valid, another CA, another key type),
// the agent-token issuer key, and signed manifests built with common/protocol/manifest.h.
// Nothing here is crypto of its own: OpenSSL mints, common/crypto reads and signs.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "common/crypto/agent_token.h"
#include "common/crypto/ed25519.h"
#include "common/crypto/x509.h"
#include "common/ids/ulid.h"
#include "common/protocol/manifest.h"

namespace fleetmcp::testing {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

PkeyPtr new_ed25519_key();
PkeyPtr new_p256_key();  // a key the fleet refuses (it takes Ed25519 only)
// The Ed25519 signing key of an OpenSSL Ed25519 key (its 32-byte seed).
Ed25519PrivateKey signing_key_of(EVP_PKEY* key);

// What a minted certificate says. Validity is in Unix seconds; the defaults are an hour ago to a
// year from now, read when the spec is made.
struct CertificateSpec {
  std::string cn;
  std::string o;  // empty: no O= in the subject
  bool ca = false;
  int64_t not_before_s = std::time(nullptr) - 3600;
  int64_t not_after_s = std::time(nullptr) + 365 * 86400;
};

// A certificate for `subject_key` signed by `issuer_key`; `issuer` nullptr makes it self-signed.
// Throws std::runtime_error when OpenSSL refuses (a broken test setup, not a test result).
X509Ptr mint_certificate(const CertificateSpec& spec, EVP_PKEY* subject_key, X509* issuer, EVP_PKEY* issuer_key);

struct TestNode {
  std::string node_id, tenant;
  PkeyPtr key;
  X509Ptr x509;
  Certificate certificate;
  Ed25519PrivateKey signing_key;
};

// How TestPki::enroll makes a node; every field has the ordinary default.
struct NodeSpec {
  std::string node_id = new_node_id();
  std::string cn;            // empty: the node_id
  EVP_PKEY* key = nullptr;   // nullptr: a new Ed25519 key; else this one is shared (another CA's copy of a node)
  int64_t not_before_s = std::time(nullptr) - 3600;
  int64_t not_after_s = std::time(nullptr) + 365 * 86400;
};

class TestPki {
 public:
  TestPki();  // a new CA "fleetmcp test CA" (O=fleet) and a new agent-token issuer key

  const Certificate& ca() const { return ca_; }
  X509* ca_x509() const { return ca_x509_.get(); }
  EVP_PKEY* ca_key() const { return ca_key_.get(); }
  const Ed25519PrivateKey& issuer() const { return issuer_; }

  // A node certificate of `tenant` from this CA (another TestPki makes a foreign one).
  std::shared_ptr<TestNode> enroll(const std::string& tenant, const NodeSpec& spec = {}) const;

  // An agent token signed by this fleet's issuer key.
  std::string token(const std::string& sub, const std::string& tenant, std::set<std::string, std::less<>> scopes,
                    int64_t exp_s, const std::string& aud = "fleetmcp", std::string jti = new_node_id()) const;

 private:
  PkeyPtr ca_key_;
  X509Ptr ca_x509_;
  Certificate ca_;
  Ed25519PrivateKey issuer_;
};

// The mock device's manifest (RFC-0005 §9 echo, RFC-0001 metrics) of `node_id`, whose certificate
// gives the kid; `node` is the short form for a TestNode.
ManifestContent example_content(const std::string& node_id, const Certificate& certificate, int64_t issued_at_ms,
                                int64_t ttl_ms = 3'600'000);
ManifestContent example_content(const TestNode& node, int64_t issued_at_ms, int64_t ttl_ms = 3'600'000);

// `content` built and signed as docs/protocol.md §5 says.
std::string signed_manifest(const Ed25519PrivateKey& key, const ManifestContent& content);
std::string signed_manifest(const TestNode& node, const ManifestContent& content);

}  // namespace fleetmcp::testing
