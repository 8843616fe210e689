// X.509 certificates of the fleet PKI (docs/protocol.md §2), with OpenSSL: an Ed25519 test root CA and
// per-node Ed25519 leaf certificates, subject CN=<node_id>, O=<tenant_id>.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/crypto/ed25519.h"

typedef struct x509_st X509;

namespace fleetmcp {

class Certificate {
 public:
  // E_ATTESTATION_FAILED naming `origin` when the PEM is not one certificate.
  static Result<Certificate> from_pem(std::string_view pem, std::string_view origin = "certificate");
  // from_pem of the file's bytes; E_ATTESTATION_FAILED naming the path when it cannot be read.
  static Result<Certificate> load_pem_file(const std::string& path);
  // Takes a new reference (X509_up_ref); the caller keeps its own. E_ATTESTATION_FAILED when its
  // DER encoding or validity period cannot be read.
  static Result<Certificate> from_x509(X509* cert);

  // Throws only on a bug (OpenSSL cannot encode a certificate it holds).
  std::string to_pem() const;
  const std::string& der() const { return der_; }
  // kid: lowercase hex SHA-256 of the DER encoding (RFC-0001 decision #1).
  const std::string& thumbprint() const { return thumbprint_; }
  const std::string& subject_cn() const { return cn_; }
  const std::string& subject_o() const { return o_; }
  // E_ATTESTATION_FAILED when the certificate's key is not Ed25519.
  Result<Ed25519PublicKey> ed25519_public_key() const;
  int64_t not_before_ms() const { return not_before_ms_; }
  int64_t not_after_ms() const { return not_after_ms_; }

  // True when this certificate's signature verifies with `issuer`'s key, its issuer name matches
  // issuer's subject, and now_ms lies within its validity period.
  bool is_issued_by(const Certificate& issuer, int64_t now_ms) const;

  X509* native() const { return cert_.get(); }

 private:
  struct Free { void operator()(X509* c) const; };
  std::shared_ptr<X509> cert_;
  std::string der_, thumbprint_, cn_, o_;
  int64_t not_before_ms_ = 0, not_after_ms_ = 0;
};

// The revocation list `fleetctl pki revoke` writes: one entry per line, a node_id or a token jti,
// '#' comments. The plugin reloads it on SIGHUP.
class RevocationList {
 public:
  // An unreadable or malformed file is an error naming file and line. A missing one is an empty
  // list only when `missing_is_empty` (fleetctl's default path); the broker plugin, told where its
  // list is, fails closed instead: a deleted or unmounted file must not un-revoke everything.
  static Result<RevocationList> load(const std::string& path, bool missing_is_empty = true);
  bool contains(std::string_view id) const { return ids_.find(id) != ids_.end(); }
  size_t size() const { return ids_.size(); }
  void add(std::string id) { ids_.insert(std::move(id)); }

 private:
  std::set<std::string, std::less<>> ids_;
};

}  // namespace fleetmcp
