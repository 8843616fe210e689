// PendingVerdict: an accepted announce's verdict, held from its WRITE check for its MESSAGE.
#include <gtest/gtest.h>

#include "broker_plugin/announces/pending_verdict.h"

namespace fleetmcp::plugin {
namespace {

const char kConnection = 1, kOtherConnection = 2;  // their addresses stand for two clients

CheckedAnnounce checked() {
  ManifestSummary summary;
  summary.etag = "etag";
  return {AcceptedAnnounce{summary.etag, std::make_shared<const ManifestSummary>(summary)}, nullptr};
}

TEST(PendingVerdict, TheSameConnectionAndBytesTakeItOnce) {
  PendingVerdict pending;
  pending.hold(&kConnection, "manifest", checked());
  const auto taken = pending.take(&kConnection, "manifest");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->accepted.etag, "etag");
  EXPECT_FALSE(pending.take(&kConnection, "manifest")) << "a verdict answers one MESSAGE";
}

TEST(PendingVerdict, OtherBytesOrAnotherConnectionFindNothingAndEmptyIt) {
  PendingVerdict pending;
  pending.hold(&kConnection, "manifest", checked());
  EXPECT_FALSE(pending.take(&kConnection, "manifesT")) << "a payload replaced after the check";
  EXPECT_FALSE(pending.take(&kConnection, "manifest")) << "the mismatch emptied it";
  pending.hold(&kConnection, "manifest", checked());
  EXPECT_FALSE(pending.take(&kOtherConnection, "manifest"));
  EXPECT_FALSE(pending.take(&kConnection, "manifest"));
}

TEST(PendingVerdict, TheNextCheckReplacesItAndDropEmptiesIt) {
  PendingVerdict pending;
  pending.hold(&kConnection, "first", checked());
  pending.hold(&kConnection, "second", checked());
  EXPECT_FALSE(pending.take(&kConnection, "first"));
  pending.hold(&kConnection, "second", checked());
  pending.drop();
  EXPECT_FALSE(pending.take(&kConnection, "second"));
}

}  // namespace
}  // namespace fleetmcp::plugin
