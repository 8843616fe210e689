#include "tests/support/test_pki.h"

#include <openssl/x509v3.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <stdexcept>
#include <utility>

namespace fleetmcp::testing {
namespace {

PkeyPtr checked(EVP_PKEY* key, const char* what) {
  if (key == nullptr) throw std::runtime_error(std::string(what) + " key generation failed");
  return PkeyPtr(key);
}

void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value);
  if (ext == nullptr) throw std::runtime_error(std::string("cannot make the extension ") + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

void add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(value.c_str()), -1,
                             -1, 0);
}

}  // namespace

PkeyPtr new_ed25519_key() { return checked(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), "Ed25519"); }

PkeyPtr new_p256_key() { return checked(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), "P-256"); }

Ed25519PrivateKey signing_key_of(EVP_PKEY* key) {
  std::array<uint8_t, 32> seed{};
  size_t len = seed.size();
  if (EVP_PKEY_get_raw_private_key(key, seed.data(), &len) != 1 || len != seed.size()) {
    throw std::runtime_error("cannot read the Ed25519 seed");
  }
  return Ed25519PrivateKey::from_seed(seed);
}

X509Ptr mint_certificate(const CertificateSpec& spec, EVP_PKEY* subject_key, X509* issuer, EVP_PKEY* issuer_key) {
  static std::atomic<long> serial{1};  // unique within the process, which is all a test CA needs
  X509Ptr cert(X509_new());
  X509* x = cert.get();
  X509_set_version(x, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
  ASN1_TIME_set(X509_getm_notBefore(x), static_cast<time_t>(spec.not_before_s));
  ASN1_TIME_set(X509_getm_notAfter(x), static_cast<time_t>(spec.not_after_s));
  X509_set_pubkey(x, subject_key);
  X509_NAME* name = X509_get_subject_name(x);
  if (!spec.o.empty()) add_name_entry(name, "O", spec.o);
  add_name_entry(name, "CN", spec.cn);
  X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
  add_extension(x, &ctx, NID_basic_constraints, spec.ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  add_extension(x, &ctx, NID_key_usage, spec.ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
  add_extension(x, &ctx, NID_subject_key_identifier, "hash");
  add_extension(x, &ctx, NID_authority_key_identifier, "keyid:always");
  // Ed25519 signs the message itself and takes no digest; any other issuer key signs SHA-256.
  const EVP_MD* md = EVP_PKEY_get_id(issuer_key) == EVP_PKEY_ED25519 ? nullptr : EVP_sha256();
  if (X509_sign(x, issuer_key, md) <= 0) throw std::runtime_error("X509_sign failed");
  return cert;
}

TestPki::TestPki()
    : ca_key_(new_ed25519_key()),
      ca_x509_(mint_certificate({.cn = "fleetmcp test CA", .o = "fleet", .ca = true}, ca_key_.get(), nullptr,
                                ca_key_.get())),
      ca_(Certificate::from_x509(ca_x509_.get()).value()),
      issuer_(Ed25519PrivateKey::generate()) {}

std::shared_ptr<TestNode> TestPki::enroll(const std::string& tenant, const NodeSpec& spec) const {
  PkeyPtr key = spec.key != nullptr ? (EVP_PKEY_up_ref(spec.key), PkeyPtr(spec.key)) : new_ed25519_key();
  const CertificateSpec wanted{.cn = spec.cn.empty() ? spec.node_id : spec.cn,
                               .o = tenant,
                               .ca = false,
                               .not_before_s = spec.not_before_s,
                               .not_after_s = spec.not_after_s};
  X509Ptr x509 = mint_certificate(wanted, key.get(), ca_x509_.get(), ca_key_.get());
  Certificate certificate = Certificate::from_x509(x509.get()).value();
  Ed25519PrivateKey signing_key = signing_key_of(key.get());
  return std::make_shared<TestNode>(TestNode{spec.node_id, tenant, std::move(key), std::move(x509),
                                             std::move(certificate), std::move(signing_key)});
}

std::string TestPki::token(const std::string& sub, const std::string& tenant,
                           std::set<std::string, std::less<>> scopes, int64_t exp_s, const std::string& aud,
                           std::string jti) const {
  AgentToken t;
  t.sub = sub;
  t.tenant = tenant;
  t.aud = aud;
  t.jti = std::move(jti);
  t.scopes = std::move(scopes);
  t.iat = std::min<int64_t>(now_ms() / 1000 - 10, exp_s - 60);  // an expired token was once valid
  t.exp = exp_s;
  return issue_agent_token(t, issuer_).value();
}

ManifestContent example_content(const std::string& node_id, const Certificate& certificate, int64_t issued_at_ms,
                                int64_t ttl_ms) {
  ManifestContent c;
  c.node_id = node_id;
  c.hw_sources = {{"machine_id", "test-" + node_id}};
  c.kid = certificate.thumbprint();
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

ManifestContent example_content(const TestNode& node, int64_t issued_at_ms, int64_t ttl_ms) {
  return example_content(node.node_id, node.certificate, issued_at_ms, ttl_ms);
}

std::string signed_manifest(const Ed25519PrivateKey& key, const ManifestContent& content) {
  json::Document doc = build_manifest(content);
  return sign_manifest(doc, key).value();
}

std::string signed_manifest(const TestNode& node, const ManifestContent& content) {
  return signed_manifest(node.signing_key, content);
}

}  // namespace fleetmcp::testing
