// PhotoStore (photo_store.h): a kept preview is read back by its tenant only, at most
// kPhotosPerTenant per tenant, until kPhotoLifetimeMs has passed (a hand-driven clock).
#include <gtest/gtest.h>

#include "broker_plugin/http/mcp/photo_store.h"

namespace fleetmcp::http {
namespace {

const json::Document kShot = json::parse_strict(
    R"({"file_path":"/p/cam-1.jpg","preview":{"mime_type":"image/jpeg","width":2,"height":2,"data_base64":"/9j/4AAQ"}})").value();

TEST(PhotoStore, KeepsThePreviewForItsTenantOnlyBoundedAndUntilItExpires) {
  int64_t now = 1000;
  PhotoStore photos([&now] { return now; });
  EXPECT_FALSE(photos.keep("acme", "n1", json::parse_strict(R"({"message":"no image"})").value()));
  const auto kept = photos.keep("acme", "n1", kShot);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->uri.starts_with("fleetmcp://nodes/n1/photos/"));
  EXPECT_EQ(kept->mime_type, "image/jpeg");
  EXPECT_EQ(kept->size_bytes, 6u);  // "/9j/4AAQ" decodes to 6 bytes
  const auto read = photos.read_result("acme", kept->uri);
  ASSERT_TRUE(read);
  EXPECT_STREQ((*read)["contents"][0]["blob"].GetString(), "/9j/4AAQ");
  EXPECT_FALSE(photos.read_result("other", kept->uri));  // another tenant: not found
  // The oldest goes when a tenant has kPhotosPerTenant.
  for (size_t i = 0; i < kPhotosPerTenant; ++i) ASSERT_TRUE(photos.keep("acme", "n1", kShot));
  EXPECT_FALSE(photos.read_result("acme", kept->uri));
  const auto last = photos.keep("acme", "n1", kShot);
  now += kPhotoLifetimeMs - 1;
  EXPECT_TRUE(photos.read_result("acme", last->uri));
  now += 1;
  EXPECT_FALSE(photos.read_result("acme", last->uri));
}

}  // namespace
}  // namespace fleetmcp::http
