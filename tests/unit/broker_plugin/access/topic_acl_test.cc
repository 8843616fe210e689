#include "broker_plugin/access/topic_acl.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace fleetmcp::plugin {
namespace {

const std::string kA = "01hzx9k3m4p7q8r9s0t1v2w3xy";  // tenant acme
const std::string kB = "01hzx9k3m4p7q8r9s0t1v2w3xz";  // tenant acme
const std::string kC = "01hzx9k3m4p7q8r9s0t1v2w3x0";  // tenant other

class Facts : public NodeFacts {
 public:
  std::optional<std::string_view> tenant_of(std::string_view node_id) const override {
    const auto it = tenants.find(std::string(node_id));
    if (it == tenants.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  bool manifest_fresh(std::string_view node_id) const override { return fresh.count(std::string(node_id)) != 0; }

  std::map<std::string, std::string> tenants{{kA, "acme"}, {kB, "acme"}, {kC, "other"}};
  std::set<std::string> fresh{kA, kB, kC};
};

Principal node(const std::string& id) { return {PrincipalKind::kNode, id, "acme"}; }
Principal agent(const std::string& tenant, uint32_t scopes = kScopeBitDevicesRead) {
  Principal p{PrincipalKind::kAgent, "claude", tenant};
  p.scopes = scopes;
  return p;
}
Principal waker() { return {PrincipalKind::kPlugin, "fleetmcp-plugin", ""}; }

class ShippedPolicy : public ::testing::Test {
 protected:
  bool allowed(const Principal& who, AclAccess access, const std::string& topic, bool retain = false,
               bool is_will = false, bool empty = false) {
    return acl.evaluate({who, access, topic, retain, is_will, empty}, facts).allowed;
  }
  std::string t(const std::string& id, const std::string& leaf) { return "$devices/" + id + "/" + leaf; }

  TopicAcl acl = TopicAcl::load(std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl").value();
  Facts facts;
};

TEST_F(ShippedPolicy, NodesWriteOnlyTheirOwnAnnounceTelemetryAndAcks) {
  EXPECT_TRUE(allowed(node(kA), kAclWrite, t(kA, "announce"), true));
  EXPECT_TRUE(allowed(node(kA), kAclWrite, t(kA, "telemetry")));
  EXPECT_TRUE(allowed(node(kA), kAclWrite, t(kA, "cmd_ack")));
  for (const char* leaf : {"status", "cmd", "rejected", "other", "announce/x"}) {
    EXPECT_FALSE(allowed(node(kA), kAclWrite, t(kA, leaf), true)) << leaf;
  }
  for (const char* leaf : {"announce", "telemetry", "cmd_ack"}) {
    EXPECT_FALSE(allowed(node(kA), kAclWrite, t(kB, leaf), true)) << "another node's " << leaf;
  }
}

TEST_F(ShippedPolicy, RetainFlagsFollowTheDesignTable) {
  EXPECT_FALSE(allowed(node(kA), kAclWrite, t(kA, "announce"), false));
  EXPECT_FALSE(allowed(node(kA), kAclWrite, t(kA, "telemetry"), true));
  EXPECT_FALSE(allowed(node(kA), kAclWrite, t(kA, "cmd_ack"), true));
}

TEST_F(ShippedPolicy, WillsFollowThePublishRulesAndNeverAnnounce) {
  const auto v = acl.evaluate({node(kA), kAclWrite, t(kA, "announce"), true, true, false}, facts);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.refusal, AclRefusal::kWill);
  ASSERT_NE(v.rule, nullptr);
  EXPECT_TRUE(v.rule->attest_manifest);
  EXPECT_TRUE(allowed(node(kA), kAclWrite, t(kA, "telemetry"), false, true));
  EXPECT_FALSE(allowed(agent("acme"), kAclWrite, t(kA, "telemetry"), false, true));
}

TEST_F(ShippedPolicy, NodesReadOnlyTheirOwnCmdRejectedAndStatus) {
  for (AclAccess access : {kAclSubscribe, kAclRead}) {
    EXPECT_TRUE(allowed(node(kA), access, t(kA, "cmd")));
    EXPECT_TRUE(allowed(node(kA), access, t(kA, "rejected")));
    EXPECT_TRUE(allowed(node(kA), access, t(kA, "status")));  // docs/protocol.md §4.3 step 5
    EXPECT_FALSE(allowed(node(kA), access, t(kB, "cmd")));
    EXPECT_FALSE(allowed(node(kA), access, t(kB, "status")));
    EXPECT_FALSE(allowed(node(kA), access, t(kA, "announce")));
    EXPECT_FALSE(allowed(node(kA), access, t(kA, "cmd_ack")));
  }
  EXPECT_FALSE(allowed(node(kA), kAclSubscribe, "$devices/+/cmd"));
  EXPECT_FALSE(allowed(node(kA), kAclSubscribe, "$devices/+/status"));
}

TEST_F(ShippedPolicy, AgentsReadTheirTenantsAnnounceStatusTelemetryOnly) {
  for (const char* leaf : {"announce", "status", "telemetry"}) {
    EXPECT_TRUE(allowed(agent("acme"), kAclSubscribe, std::string("$devices/+/") + leaf)) << leaf;
    EXPECT_TRUE(allowed(agent("acme"), kAclRead, t(kA, leaf))) << leaf;
    EXPECT_FALSE(allowed(agent("acme"), kAclRead, t(kC, leaf))) << "other tenant's " << leaf;
    EXPECT_FALSE(allowed(agent("acme", 0), kAclSubscribe, t(kA, leaf))) << "without devices:read";
    EXPECT_FALSE(allowed(agent("acme"), kAclWrite, t(kA, leaf), true)) << leaf;
  }
  for (const char* leaf : {"cmd", "cmd_ack", "rejected"}) {
    EXPECT_FALSE(allowed(agent("acme"), kAclSubscribe, t(kA, leaf))) << leaf;
    EXPECT_FALSE(allowed(agent("acme"), kAclRead, t(kA, leaf))) << leaf;
  }
}

TEST_F(ShippedPolicy, UnknownNodesAreInvisibleToAgents) {
  EXPECT_FALSE(allowed(agent("acme"), kAclRead, t("01hzx9k3m4p7q8r9s0t1v2w3x1", "status")));
}

TEST_F(ShippedPolicy, StaleAnnouncesAreHiddenButTheirClearingIsDelivered) {
  facts.fresh.erase(kA);
  EXPECT_FALSE(allowed(agent("acme"), kAclRead, t(kA, "announce")));
  EXPECT_TRUE(allowed(agent("acme"), kAclRead, t(kA, "announce"), true, false, /*empty=*/true));
  EXPECT_TRUE(allowed(agent("acme"), kAclRead, t(kA, "status")));
}

TEST_F(ShippedPolicy, SubscriptionFiltersMustStayWithinThePattern) {
  EXPECT_TRUE(allowed(agent("acme"), kAclSubscribe, t(kC, "status")));  // tenant is checked per delivery
  EXPECT_FALSE(allowed(agent("acme"), kAclSubscribe, "$devices/#"));
  EXPECT_FALSE(allowed(agent("acme"), kAclSubscribe, "$devices/+/#"));
  EXPECT_FALSE(allowed(agent("acme"), kAclSubscribe, "$devices/+/+"));
  EXPECT_FALSE(allowed(agent("acme"), kAclSubscribe, t(kA, "+")));
  EXPECT_FALSE(allowed(node(kA), kAclSubscribe, t(kA, "#")));
}

TEST_F(ShippedPolicy, ThePluginScansAnnouncesAndWakesTheLoop) {
  EXPECT_TRUE(allowed(waker(), kAclSubscribe, "$devices/+/announce"));
  EXPECT_TRUE(allowed(waker(), kAclRead, t(kA, "announce")));
  EXPECT_TRUE(allowed(waker(), kAclWrite, "$fleetmcp/wake"));
  EXPECT_FALSE(allowed(waker(), kAclWrite, t(kA, "status"), true));
  EXPECT_FALSE(allowed(waker(), kAclRead, t(kA, "telemetry")));
}

TEST_F(ShippedPolicy, ControlDriverTopicsAreForAgents) {
  EXPECT_TRUE(allowed(agent("acme", 0), kAclWrite, "$CONTROL/fleetmcp/v1"));
  EXPECT_TRUE(allowed(agent("acme", 0), kAclSubscribe, "$CONTROL/fleetmcp/v1/response"));
  EXPECT_FALSE(allowed(node(kA), kAclWrite, "$CONTROL/fleetmcp/v1"));
}

std::string parse_error(const std::string& text) {
  const auto acl = TopicAcl::parse(text, "test.acl");
  if (!acl) return acl.error().message;
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

TEST(TopicAclFile, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_error("# ok\nallow = robot publish a/b\n"),
            "test.acl:2: allow: unknown principal 'robot' (node, agent, plugin, bridge)");
  EXPECT_EQ(parse_error("allow = node write a/b\n"), "test.acl:1: allow: unknown access 'write' (publish, subscribe, read)");
  EXPECT_EQ(parse_error("allow = node publish a/#/b\n"), "test.acl:1: allow: '#' must be the last level");
  EXPECT_EQ(parse_error("allow = node publish a/x+\n"),
            "test.acl:1: allow: level 'x+' mixes a wildcard or variable with text");
  EXPECT_EQ(parse_error("allow = node read a/b retain=yes\n"),
            "test.acl:1: allow: retain=, will= and attest= apply to publish only");
  EXPECT_EQ(parse_error("allow = agent read a/+ node_tenant={tenant}\n"),
            "test.acl:1: allow: node_tenant= and fresh= need a pattern $devices/+/... or $devices/{node_id}/...");
  EXPECT_EQ(parse_error("allow = agent read a/b scope=devices:write\n"),
            "test.acl:1: allow: unknown scope 'devices:write'");
  EXPECT_EQ(parse_error("deny = node read a/b\n"), "test.acl:1: deny: unknown key (the policy has only 'allow = ...' lines)");
  EXPECT_EQ(parse_error("allow = node publish\n"),
            "test.acl:1: allow: expected '<principal> <access> <topic pattern> [conditions]'");
}

TEST(TopicAclFile, LiteralTenantsAndTopicsOutsideDevices) {
  const TopicAcl acl = TopicAcl::parse(
      "allow = agent read $devices/+/status node_tenant=ops\nallow = agent publish,subscribe,read fleet/+/x\n", "t")
                           .value();
  Facts facts;
  facts.tenants[kA] = "ops";
  EXPECT_TRUE(acl.evaluate({agent("acme"), kAclRead, "$devices/" + kA + "/status"}, facts).allowed);
  EXPECT_FALSE(acl.evaluate({agent("acme"), kAclRead, "$devices/" + kB + "/status"}, facts).allowed);
  EXPECT_TRUE(acl.evaluate({agent("acme"), kAclWrite, "fleet/1/x"}, facts).allowed);
  EXPECT_TRUE(acl.evaluate({agent("acme"), kAclSubscribe, "fleet/+/x"}, facts).allowed);
  EXPECT_FALSE(acl.evaluate({agent("acme"), kAclSubscribe, "fleet/#"}, facts).allowed);
  EXPECT_FALSE(acl.evaluate({agent("acme"), kAclWrite, "fleet/1/x/y"}, facts).allowed);
}
}  // namespace
}  // namespace fleetmcp::plugin
