// Content negotiation: Accept and Content-Type.
#include <gtest/gtest.h>

#include "broker_plugin/http/base/media_type.h"

namespace fleetmcp::http {
namespace {

TEST(MediaType, AcceptAndContentType) {
  EXPECT_TRUE(accepts("application/json, text/event-stream", "text/event-stream"));
  EXPECT_TRUE(accepts("*/*", "application/json"));
  EXPECT_TRUE(accepts("text/*;q=0.5", "text/event-stream"));
  EXPECT_FALSE(accepts("text/event-stream;q=0", "text/event-stream"));
  EXPECT_FALSE(accepts(std::nullopt, "application/json"));
  EXPECT_TRUE(names("Text/Event-Stream", "text/event-stream"));
  EXPECT_FALSE(names("*/*", "text/event-stream"));
  EXPECT_TRUE(is_json_content_type("application/json; charset=utf-8"));
  // Compared case-insensitively as written, without lowercased copies.
  EXPECT_TRUE(is_json_content_type(" Application/JSON "));
  EXPECT_TRUE(accepts("TEXT/*", "text/event-stream"));
  EXPECT_FALSE(accepts("Text/Event-Stream; Q=0.0", "text/event-stream"));
  EXPECT_FALSE(is_json_content_type("application/jsonx"));
}

}  // namespace
}  // namespace fleetmcp::http
