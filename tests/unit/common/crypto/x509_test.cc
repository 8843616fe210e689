#include "common/crypto/x509.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/base/error.h"
#include "tests/support/test_pki.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;

using testing::CertificateSpec;
using testing::new_ed25519_key;
using testing::new_p256_key;
using testing::PkeyPtr;

// A certificate minted by the test PKI, so validity periods and issuers can be anything.
Certificate make_cert(const CertificateSpec& s, EVP_PKEY* subject_key, const Certificate* issuer, EVP_PKEY* issuer_key) {
  const auto x509 = testing::mint_certificate(s, subject_key, issuer ? issuer->native() : nullptr, issuer_key);
  return Certificate::from_x509(x509.get()).value();  // takes its own reference
}

class X509Test : public ::testing::Test {
 protected:
  const int64_t now_s = std::time(nullptr);
  const int64_t day = 86400;
  PkeyPtr ca_key = new_ed25519_key(), leaf_key = new_ed25519_key();
  Certificate ca = make_cert({"fleetmcp test root CA", "", true, now_s - day, now_s + 365 * day}, ca_key.get(), nullptr,
                             ca_key.get());
  Certificate leaf(int64_t not_before_s, int64_t not_after_s) {
    return make_cert({"01jd3x0000000000000000000a", "acme", false, not_before_s, not_after_s}, leaf_key.get(), &ca,
                     ca_key.get());
  }
  int64_t now_ms() const { return now_s * 1000; }
};

TEST_F(X509Test, LeafChainsToItsCa) {
  const auto cert = leaf(now_s - 60, now_s + day);
  EXPECT_TRUE(cert.is_issued_by(ca, now_ms()));
  EXPECT_TRUE(ca.is_issued_by(ca, now_ms())) << "a root is its own issuer";
  EXPECT_EQ(cert.subject_cn(), "01jd3x0000000000000000000a");
  EXPECT_EQ(cert.subject_o(), "acme");
  EXPECT_EQ(cert.not_before_ms(), (now_s - 60) * 1000);
  EXPECT_EQ(cert.not_after_ms(), (now_s + day) * 1000);
  Ed25519PublicKey expected{};
  size_t len = expected.size();
  EVP_PKEY_get_raw_public_key(leaf_key.get(), expected.data(), &len);
  EXPECT_EQ(cert.ed25519_public_key().value(), expected);
}

TEST_F(X509Test, AnotherCaWithTheSameNameFails) {
  auto other_key = new_ed25519_key();
  const auto other_ca = make_cert({"fleetmcp test root CA", "", true, now_s - day, now_s + day}, other_key.get(), nullptr,
                                  other_key.get());
  EXPECT_FALSE(leaf(now_s - 60, now_s + day).is_issued_by(other_ca, now_ms()));
}

TEST_F(X509Test, OutsideTheValidityPeriodFails) {
  EXPECT_FALSE(leaf(now_s - 2 * day, now_s - day).is_issued_by(ca, now_ms())) << "expired";
  EXPECT_FALSE(leaf(now_s + day, now_s + 2 * day).is_issued_by(ca, now_ms())) << "not yet valid";
  const auto cert = leaf(now_s - 60, now_s + day);
  EXPECT_FALSE(cert.is_issued_by(ca, cert.not_after_ms() + 1000)) << "now_ms is what counts, not the wall clock";
}

TEST_F(X509Test, ExpiredCaFails) {
  const auto old_ca = make_cert({"old CA", "", true, now_s - 2 * day, now_s - day}, ca_key.get(), nullptr, ca_key.get());
  const auto cert = make_cert({"n", "acme", false, now_s - 60, now_s + day}, leaf_key.get(), &old_ca, ca_key.get());
  EXPECT_FALSE(cert.is_issued_by(old_ca, now_ms()));
}

TEST_F(X509Test, NonCaIssuerFails) {
  const auto not_a_ca = leaf(now_s - 60, now_s + day);
  auto key = new_ed25519_key();
  const auto cert = make_cert({"n", "acme", false, now_s - 60, now_s + day}, key.get(), &not_a_ca, leaf_key.get());
  EXPECT_FALSE(cert.is_issued_by(not_a_ca, now_ms()));
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  char buf[256];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  if (p) pclose(p);
  return out;
}

TEST_F(X509Test, ThumbprintIsSha256OfDerAsOpenSslComputesIt) {
  const auto cert = leaf(now_s - 60, now_s + day);
  const fs::path pem = fs::temp_directory_path() / ("x509_test_" + std::to_string(::getpid()) + ".crt");
  std::ofstream(pem) << cert.to_pem();
  const std::string out = run("openssl x509 -in " + pem.string() + " -outform DER | sha256sum");
  fs::remove(pem);
  ASSERT_GE(out.size(), 64u) << "openssl or sha256sum missing";
  EXPECT_EQ(cert.thumbprint(), out.substr(0, 64));
  EXPECT_EQ(cert.thumbprint().size(), 64u);
  EXPECT_EQ(Certificate::from_pem(cert.to_pem())->thumbprint(), cert.thumbprint());
  EXPECT_EQ(Certificate::from_pem(cert.to_pem())->der(), cert.der());
}

TEST_F(X509Test, FromPemRejectsGarbageAndBundlesNamingTheOrigin) {
  const std::string pem = leaf(now_s - 60, now_s + day).to_pem();
  for (const std::string& bad : {std::string("garbage"), std::string(), pem + ca.to_pem()}) {
    const auto refused = Certificate::from_pem(bad, "node.crt");
    ASSERT_FALSE(refused.ok()) << "accepted";
    EXPECT_EQ(refused.error().code, ErrorCode::kAttestationFailed);
    EXPECT_EQ(refused.error().message.rfind("node.crt: ", 0), 0u) << refused.error().message;
  }
  const auto missing = Certificate::load_pem_file("/nonexistent/node.crt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kAttestationFailed);
  EXPECT_NE(missing.error().message.find("/nonexistent/node.crt"), std::string::npos) << missing.error().message;
}

TEST_F(X509Test, NonEd25519KeyIsRefused) {
  auto ec = new_p256_key();
  const auto cert = make_cert({"ec", "acme", false, now_s - 60, now_s + day}, ec.get(), &ca, ca_key.get());
  EXPECT_TRUE(cert.is_issued_by(ca, now_ms()));
  const auto key = cert.ed25519_public_key();
  ASSERT_FALSE(key.ok()) << "P-256 key accepted as Ed25519";
  EXPECT_EQ(key.error().code, ErrorCode::kAttestationFailed);
}

class RevocationListTest : public ::testing::Test {
 protected:
  fs::path path = fs::temp_directory_path() / ("revoked_test_" + std::to_string(::getpid()) + ".txt");
  void TearDown() override { fs::remove(path); }
  void write(const std::string& text) { std::ofstream(path) << text; }
};

TEST_F(RevocationListTest, MissingFileIsEmpty) {
  const auto list = RevocationList::load(path.string()).value();
  EXPECT_EQ(list.size(), 0u);
  EXPECT_FALSE(list.contains("01jd3x0000000000000000000a"));
}

TEST_F(RevocationListTest, MissingFileFailsClosedWhenRequired) {
  const auto list = RevocationList::load(path.string(), /*missing_is_empty=*/false);
  ASSERT_FALSE(list.ok()) << "a missing list was taken as empty";
  EXPECT_NE(list.error().message.find(path.string() + " does not exist"), std::string::npos) << list.error().message;
}

TEST_F(RevocationListTest, ReadsIdsCommentsAndBlankLines) {
  write("# revoked\n01jd3x0000000000000000000a\n\n  01JD3X0000000000000000000B  # lost\r\n");
  const auto list = RevocationList::load(path.string()).value();
  EXPECT_EQ(list.size(), 2u);
  EXPECT_TRUE(list.contains("01jd3x0000000000000000000a"));
  EXPECT_TRUE(list.contains("01jd3x0000000000000000000b")) << "uppercase entries are stored lowercase";
  EXPECT_FALSE(list.contains("01jd3x0000000000000000000c"));
}

TEST_F(RevocationListTest, MalformedLineNamesFileAndLine) {
  write("01jd3x0000000000000000000a\n\nnot-an-id\n");
  const auto list = RevocationList::load(path.string());
  ASSERT_FALSE(list.ok()) << "accepted";
  EXPECT_NE(list.error().message.find(path.string() + ":3"), std::string::npos) << list.error().message;
}

}  // namespace
}  // namespace fleetmcp
