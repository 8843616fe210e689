#include "common/crypto/x509.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/ids/ulid.h"

namespace fleetmcp {
namespace {

struct BioFree { void operator()(BIO* b) const { BIO_free(b); } };
struct StoreFree { void operator()(X509_STORE* s) const { X509_STORE_free(s); } };
struct StoreCtxFree { void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); } };

constexpr std::string_view kCertFix = "use a PEM certificate issued by fleetctl pki (one per file)";

ErrorEnvelope bad_cert(std::string_view origin, std::string_view what) {
  ERR_clear_error();  // leave no stale OpenSSL errors behind for the next caller
  return ErrorEnvelope(ErrorCode::kAttestationFailed, std::string(origin) + ": " + std::string(what), kCertFix);
}

// The first subject entry of `nid` as UTF-8, "" when absent. The first one, because that is the
// one mosquitto's use_identity_as_username takes, and the two must agree on who a node is.
std::string subject_entry(X509* cert, int nid) {
  X509_NAME* name = X509_get_subject_name(cert);
  const int index = X509_NAME_get_index_by_NID(name, nid, -1);
  if (index < 0) return {};
  unsigned char* utf8 = nullptr;
  const int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index)));
  if (len < 0) return {};
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
  OPENSSL_free(utf8);
  return out;
}

Result<int64_t> asn1_time_ms(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return bad_cert("certificate", "unreadable validity period");
  using namespace std::chrono;
  const sys_days day{year{tm.tm_year + 1900} / month{static_cast<unsigned>(tm.tm_mon + 1)} /
                     static_cast<unsigned>(tm.tm_mday)};
  const auto at = day + hours{tm.tm_hour} + minutes{tm.tm_min} + seconds{tm.tm_sec};
  return duration_cast<milliseconds>(at.time_since_epoch()).count();
}

}  // namespace

void Certificate::Free::operator()(X509* c) const { X509_free(c); }

Result<Certificate> Certificate::from_pem(std::string_view pem, std::string_view origin) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return ErrorEnvelope(ErrorCode::kInternal, "out of memory", "retry");
  X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
  if (!cert) return bad_cert(origin, "not a PEM certificate");
  std::unique_ptr<X509, Free> owned(cert);
  // A second certificate means the file is a bundle; which one is "the" certificate would be a
  // guess, so refuse instead of silently taking the first.
  if (X509* extra = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_free(extra);
    return bad_cert(origin, "more than one certificate");
  }
  ERR_clear_error();  // the second read's "no start line" is expected
  return from_x509(cert);
}

Result<Certificate> Certificate::load_pem_file(const std::string& path) {
  const auto pem = read_file(path, ErrorCode::kAttestationFailed, "", kCertFix);
  if (!pem) return pem.error();
  return from_pem(*pem, path);
}

Result<Certificate> Certificate::from_x509(X509* cert) {
  X509_up_ref(cert);
  Certificate c;
  c.cert_.reset(cert, Free{});
  unsigned char* der = nullptr;
  const int len = i2d_X509(cert, &der);
  if (len <= 0) return bad_cert("certificate", "cannot be DER-encoded");
  c.der_.assign(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  c.thumbprint_ = sha256_hex(c.der_);
  c.cn_ = subject_entry(cert, NID_commonName);
  c.o_ = subject_entry(cert, NID_organizationName);
  const auto not_before = asn1_time_ms(X509_get0_notBefore(cert));
  if (!not_before) return not_before.error();
  const auto not_after = asn1_time_ms(X509_get0_notAfter(cert));
  if (!not_after) return not_after.error();
  c.not_before_ms_ = *not_before;
  c.not_after_ms_ = *not_after;
  return c;
}

std::string Certificate::to_pem() const {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || !PEM_write_bio_X509(bio.get(), cert_.get())) {
    throw Error(ErrorCode::kInternal, "cannot encode a certificate as PEM", "report this as a bug");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Result<Ed25519PublicKey> Certificate::ed25519_public_key() const {
  EVP_PKEY* pkey = X509_get0_pubkey(cert_.get());
  if (!pkey || EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) return bad_cert("certificate " + cn_, "key is not Ed25519");
  Ed25519PublicKey key{};
  size_t len = key.size();
  if (EVP_PKEY_get_raw_public_key(pkey, key.data(), &len) != 1 || len != key.size()) {
    return bad_cert("certificate " + cn_, "unreadable Ed25519 key");
  }
  return key;
}

// OpenSSL's own path validation with `issuer` as the only trust anchor: signature, issuer name and
// key identifiers, the issuer being a CA allowed to sign certificates, and the validity periods of
// both certificates at now_ms. PARTIAL_CHAIN lets an intermediate serve as the anchor too.
bool Certificate::is_issued_by(const Certificate& issuer, int64_t now_ms) const {
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  if (!store || !ctx || X509_STORE_add_cert(store.get(), issuer.native()) != 1 ||
      X509_STORE_CTX_init(ctx.get(), store.get(), cert_.get(), nullptr) != 1) {
    ERR_clear_error();
    return false;  // fail closed (x509.h)
  }
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
  X509_VERIFY_PARAM_set_time(param, static_cast<time_t>(now_ms / 1000));
  const bool ok = X509_verify_cert(ctx.get()) == 1;
  ERR_clear_error();
  return ok;
}

Result<RevocationList> RevocationList::load(const std::string& path, bool missing_is_empty) {
  RevocationList list;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) {
    if (missing_is_empty) return list;  // no file yet: nothing revoked
    return ErrorEnvelope(ErrorCode::kInternal, "revocation list " + path + " does not exist",
                "restore it (fleetctl pki init makes an empty one), or remove the option if nothing is ever revoked");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ErrorEnvelope(ErrorCode::kInternal, "cannot read revocation list " + path, "check the path and its permissions");
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    std::string id = line.substr(first, last - first + 1);
    // Entries are node_ids and token jtis, both ULIDs; stored lowercase so a hand-edited
    // uppercase entry still revokes (node_ids and the jtis fleetctl issues are lowercase).
    for (char& c : id) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (!is_node_id(id)) {
      return ErrorEnvelope(ErrorCode::kInternal, path + ":" + std::to_string(number) + ": not a node_id or token jti (ULID)",
                  "fix or delete that line; entries are 26-character ULIDs, one per line");
    }
    list.add(std::move(id));
  }
  if (in.bad()) return ErrorEnvelope(ErrorCode::kInternal, "cannot read revocation list " + path, "check the file");
  return list;
}

}  // namespace fleetmcp
