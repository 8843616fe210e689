// AnnounceVerifier: what it adds to the one sequence of manifest checks (common/protocol/manifest.h,
// whose refusals manifest_test.cc covers): the verdict cache by the payload's BLAKE3, where a
// cached verdict still meets the certificate it is presented with, and forget().
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "broker_plugin/announces/announce_verifier.h"
#include "common/ids/ulid.h"
#include "common/registry/schema_registry.h"
#include "tests/support/test_pki.h"

namespace fleetmcp::plugin {
namespace {

// One CA and two nodes of one tenant for the whole suite (making keys is the slow part).
struct Enrolled {
  std::shared_ptr<const SchemaRegistry> schemas = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas");
  testing::TestPki pki;
  std::shared_ptr<testing::TestNode> node = pki.enroll("acme");
  std::shared_ptr<testing::TestNode> other_node = pki.enroll("acme");
};

const Enrolled& enrolled() {
  static const Enrolled e;
  return e;
}

class AnnounceVerifierTest : public ::testing::Test {
 protected:
  AnnounceContext facts(const testing::TestNode& node) const {
    AnnounceContext c;
    c.now_ms = now_;
    c.topic_node_id = node.node_id;
    c.certificate = &node.certificate;
    c.chain_verified = true;
    return c;
  }

  const testing::TestNode& node_ = *enrolled().node;
  const testing::TestNode& other_node_ = *enrolled().other_node;
  int64_t now_ = now_ms();
  AnnounceVerifier verifier_{enrolled().schemas, enrolled().pki.ca(), std::make_shared<RevocationList>(), 16};
  std::string announce_ = testing::signed_manifest(node_, testing::example_content(node_, now_ - 1000));
};

TEST_F(AnnounceVerifierTest, ASecondCheckOfTheSameBytesIsACacheHitWithTheSameVerdict) {
  const AnnounceVerdict first = verifier_.check(announce_, facts(node_));
  ASSERT_TRUE(first.ok()) << first.error().error.message;
  EXPECT_FALSE(first->cache_hit);
  ASSERT_NE(first->manifest, nullptr);
  const AnnounceVerdict again = verifier_.check(announce_, facts(node_));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->manifest->payload_digest, first->manifest->payload_digest);
  EXPECT_EQ(again->etag, first->etag);
  EXPECT_EQ(verifier_.cached(), 1u);
}

// The cache keeps what depends on the bytes alone: the same payload under another node's topic
// and certificate is refused, although its verdict is cached.
TEST_F(AnnounceVerifierTest, ACachedVerdictIsStillCheckedAgainstThePresentedCertificate) {
  ASSERT_TRUE(verifier_.check(announce_, facts(node_)).ok());
  const AnnounceVerdict replayed = verifier_.check(announce_, facts(other_node_));
  ASSERT_FALSE(replayed.ok());
  EXPECT_FALSE(replayed.error().error.message.empty());
  EXPECT_TRUE(verifier_.check(announce_, facts(node_)).ok());
}

TEST_F(AnnounceVerifierTest, AForgottenVerdictIsAnalysedAgain) {
  const AnnounceVerdict first = verifier_.check(announce_, facts(node_));
  ASSERT_TRUE(first.ok());
  verifier_.forget(first->manifest->payload_digest);
  EXPECT_EQ(verifier_.cached(), 0u);
  const AnnounceVerdict again = verifier_.check(announce_, facts(node_));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->cache_hit);
}

}  // namespace
}  // namespace fleetmcp::plugin
