// subscriptions/listen streams (MCP 2026-07-28): acknowledged first, then a tools/list_changed or
// resources/list_changed per change of their tenant's lists they asked for, each naming the
// listen's id; other tenants hear nothing.
#include "broker_plugin/http/stateless/listen_streams.h"

#include <gtest/gtest.h>

#include "common/base/json.h"
#include "tests/support/agent_claims.h"
#include "tests/support/broker_plugin/recording_session_listener.h"

namespace fleetmcp::http {
namespace {

using testing::agent;
using testing::RecordingSessionListener;

struct Listening {
  std::shared_ptr<McpSession> session;
  std::shared_ptr<RecordingSessionListener> stream = std::make_shared<RecordingSessionListener>();
};

Listening listening(const std::string& sub, const std::string& tenant) {
  Listening l{std::make_shared<McpSession>(std::string(), agent(sub, tenant), McpRevision::k2026_07_28, 0)};
  l.session->attach(l.stream);
  return l;
}

TEST(ListenStreams, AcknowledgedThenToldOfItsTenantsChangesOnly) {
  ListenStreams listens;
  const Listening alice = listening("alice", "acme");
  const Listening olga = listening("olga", "other");
  listens.add(alice.session, R"("listen:0")", ListenFilter{true});
  listens.add(olga.session, "7", ListenFilter{true});
  ASSERT_EQ(alice.stream->messages().size(), 1u);
  const auto ack = json::parse_strict(alice.stream->messages()[0]).value();
  EXPECT_EQ(json::get_string(ack, "method"), "notifications/subscriptions/acknowledged");
  const json::Value& params = *json::find(ack, "params");
  EXPECT_TRUE(json::get_bool(*json::find(params, "notifications"), "toolsListChanged").value_or(false));
  EXPECT_EQ(json::get_string(*json::find(params, "_meta"), "io.modelcontextprotocol/subscriptionId"), "listen:0");

  EXPECT_EQ(listens.tools_changed("acme"), 1u);
  ASSERT_EQ(alice.stream->messages().size(), 2u);
  const auto told = json::parse_strict(alice.stream->messages()[1]).value();
  EXPECT_EQ(json::get_string(told, "method"), "notifications/tools/list_changed");
  EXPECT_EQ(json::get_string(*json::find(*json::find(told, "params"), "_meta"), "io.modelcontextprotocol/subscriptionId"),
            "listen:0");
  EXPECT_EQ(olga.stream->messages().size(), 1u);  // only its acknowledgement
}

TEST(ListenStreams, AStreamThatAskedForNothingOrEndedIsNotTold) {
  ListenStreams listens;
  const Listening quiet = listening("alice", "acme");
  listens.add(quiet.session, "1", ListenFilter{false});
  const auto ack = json::parse_strict(quiet.stream->messages()[0]).value();
  EXPECT_TRUE(json::find(*json::find(ack, "params"), "notifications")->ObjectEmpty());  // nothing honoured
  const Listening gone = listening("bob", "acme");
  listens.add(gone.session, "2", ListenFilter{true});
  gone.session->detach(gone.stream.get());  // its stream ended
  EXPECT_EQ(listens.tools_changed("acme"), 0u);
  listens.end_all();
  EXPECT_TRUE(quiet.stream->closed());
}

TEST(ListenStreams, ResourceListChangesGoToTheStreamsThatAskedForThem) {
  ListenStreams listens;
  const Listening tools = listening("alice", "acme");
  const Listening resources = listening("bob", "acme");
  listens.add(tools.session, "1", ListenFilter{true, false});
  listens.add(resources.session, "2", ListenFilter{false, true});
  const auto ack = json::parse_strict(resources.stream->messages()[0]).value();
  const json::Value& honoured = *json::find(*json::find(ack, "params"), "notifications");
  EXPECT_TRUE(json::get_bool(honoured, "resourcesListChanged").value_or(false));
  EXPECT_FALSE(honoured.HasMember("toolsListChanged"));

  EXPECT_EQ(listens.resources_changed("acme"), 1u);
  EXPECT_EQ(listens.resources_changed("other"), 0u);
  ASSERT_EQ(resources.stream->messages().size(), 2u);
  const auto told = json::parse_strict(resources.stream->messages()[1]).value();
  EXPECT_EQ(json::get_string(told, "method"), "notifications/resources/list_changed");
  EXPECT_EQ(json::get_int64(*json::find(*json::find(told, "params"), "_meta"), "io.modelcontextprotocol/subscriptionId"), 2);
  EXPECT_EQ(tools.stream->messages().size(), 1u);  // it asked for tool-list changes only
}

}  // namespace
}  // namespace fleetmcp::http
