// ManifestStore: an accepted manifest in its node's record until it is replaced, withdrawn or
// expires; what is audited, published and remembered on the way.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "broker_plugin/announces/manifest_store.h"
#include "common/registry/schema_registry.h"
#include "tests/support/broker_plugin/recording_observer.h"
#include "tests/support/plugin_fake_broker.h"
#include "tests/support/test_pki.h"

namespace fleetmcp::plugin {
namespace {

class ManifestStoreTest : public ::testing::Test {
 protected:
  ManifestStoreTest() : node_(pki_.enroll("acme")) {
    status_.set_observer(&observer_);
    record_ = &registry_.get_or_create(node_->node_id, "acme");
  }

  // `issued_at_ms`'s manifest, through the checks as the WRITE check runs them.
  CheckedAnnounce checked(int64_t issued_at_ms, int64_t ttl_ms = 3'600'000) {
    const std::string payload = testing::signed_manifest(*node_, testing::example_content(*node_, issued_at_ms, ttl_ms));
    auto verdict = verifier_.check(payload, announce_facts(record_, node_->node_id, &node_->certificate, now_));
    EXPECT_TRUE(verdict.ok()) << verdict.error().error.message;
    return {std::move(verdict).value(), std::make_shared<const Certificate>(node_->certificate)};
  }
  size_t published(const std::string& leaf) { return broker_.take(testing::topic(node_->node_id, leaf)).size(); }

  int64_t now_ = now_ms();
  PluginClock clock_ = [this] { return now_; };
  testing::TestPki pki_;
  std::shared_ptr<testing::TestNode> node_;
  testing::FakeBroker broker_;
  testing::RecordingObserver observer_;
  PluginCounters counters_;
  AuditTrail audit_{"", /*refusal_interval_ms=*/0, clock_, counters_};
  AnnounceVerifier verifier_{SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"), pki_.ca(),
                             std::make_shared<RevocationList>(), 16};
  NodeRegistry registry_;
  NodeStatus status_{broker_, clock_};
  ManifestStore store_{registry_, verifier_, status_, broker_, clock_, audit_, counters_};
  NodeRecord* record_ = nullptr;
};

TEST_F(ManifestStoreTest, AnAcceptedManifestIsTheNodesAndItsPredecessorsVerdictIsForgotten) {
  store_.accept(*record_, checked(now_ - 2000), node_->node_id, "");
  EXPECT_TRUE(record_->manifest_fresh(now_));
  EXPECT_EQ(record_->last_issued_at_ms, now_ - 2000);
  ASSERT_TRUE(record_->hw_pin);
  EXPECT_EQ(record_->hw_pin->kid, node_->certificate.thumbprint());
  EXPECT_TRUE(store_.changed_since_saved());
  EXPECT_EQ(published("status"), 1u);
  EXPECT_TRUE(observer_.changed_since(node_->node_id));
  store_.saved();

  store_.accept(*record_, checked(now_ - 1000), node_->node_id, "");
  EXPECT_EQ(record_->last_issued_at_ms, now_ - 1000);
  EXPECT_TRUE(store_.changed_since_saved());
  EXPECT_EQ(verifier_.cached(), 1u) << "only the current manifest's verdict is kept";
}

TEST_F(ManifestStoreTest, DeregistrationForgetsTheManifestAndTheNodeGoesOffline) {
  store_.accept(*record_, checked(now_ - 1000), node_->node_id, "");
  store_.deregister(*record_);
  EXPECT_EQ(record_->manifest, nullptr);
  EXPECT_EQ(verifier_.cached(), 0u);
  EXPECT_EQ(counters_.deregistrations.load(), 1u);
  EXPECT_EQ(observer_.offline, std::vector<std::string>{node_->node_id});
}

TEST_F(ManifestStoreTest, AManifestPastItsExpiryIsClearedOnceByTheSweep) {
  store_.accept(*record_, checked(now_ - 1000, /*ttl_ms=*/5000), node_->node_id, "");
  published("announce");
  store_.expire_due(now_ + 3000);
  EXPECT_EQ(published("announce"), 0u) << "not due yet";
  store_.expire_due(now_ + 4000);
  const auto cleared = broker_.take(testing::topic(node_->node_id, "announce"));
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_TRUE(cleared[0].payload.empty());
  EXPECT_TRUE(cleared[0].retain);
  EXPECT_TRUE(record_->manifest_expired);
  EXPECT_EQ(record_->state(), NodeState::kExpired);
  EXPECT_EQ(counters_.manifests_expired.load(), 1u);
  store_.expire_due(now_ + 9000);
  EXPECT_EQ(counters_.manifests_expired.load(), 1u);
}

}  // namespace
}  // namespace fleetmcp::plugin
