// fleet_read (fleet_read.h) through MCP: what it refuses once for the whole call (issue 37 item 1).
#include <gtest/gtest.h>

#include "broker_plugin/http/surface/fleet_read.h"
#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

constexpr std::string_view kMetricsNode2 = "01hzx9k3m4p7q8r9s0t1v2w3xb";

const json::Value& error_envelope(const json::Document& body) { return body["result"]["_meta"]["io.fleetmcp/error"]; }

// The arguments are the same for every node and the kind has one input schema: arguments it
// refuses are one isError result naming the argument as the client wrote it, not an error per node
// inside a result that is no error, and no node is called.
TEST_F(McpTest, FleetReadRefusesBadArgumentsOnceNamingThem) {
  f.fleet->add_node("acme", std::string(kMetricsNode2), {{"metrics", "system.metrics", {"snapshot"}, SafetyClass::kReadOnly, {}}});
  f.scheduler->run();
  const std::string sid = f.open_session(tok);
  const size_t calls = f.fleet->calls_received();
  const size_t audited = f.audit->size();
  const auto body = body_of(*f.rpc(sid, tok, "tools/call",
                                   R"({"name":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot",)"
                                   R"("arguments":{"include":"uptime"}}})"));
  ASSERT_TRUE(body["result"]["isError"].GetBool());
  EXPECT_FALSE(body["result"].HasMember("structuredContent") && body["result"]["structuredContent"].HasMember("results"));
  const json::Value& e = error_envelope(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  const std::string message(*json::get_string(e, "message"));
  EXPECT_NE(message.find("at /arguments/include"), std::string::npos) << message;
  const std::string fix(*json::get_string(e, "suggested_fix"));
  EXPECT_NE(fix.find("system_metrics_snapshot"), std::string::npos) << fix;
  EXPECT_NE(fix.find("no node was called"), std::string::npos) << fix;
  EXPECT_EQ(f.fleet->calls_received(), calls);
  EXPECT_EQ(f.audit->size(), audited + 1);  // one refusal, under fleet_read's name

  // Good arguments still read every node.
  const auto good = body_of(*f.rpc(sid, tok, "tools/call",
                                   R"({"name":"fleet_read","arguments":{"kind":"system.metrics","verb":"snapshot",)"
                                   R"("arguments":{"include":["uptime"]}}})", 2));
  EXPECT_FALSE(good["result"]["isError"].GetBool());
  EXPECT_EQ(*json::get_int64(good["result"]["structuredContent"], "ok_count"), 2);
}

// A kind none of the caller's nodes has is refused with the kinds present, not answered with no
// node (which reads as "none of them has it").
TEST_F(McpTest, FleetReadRefusesAKindNoNodeOfTheTenantHas) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call", R"({"name":"fleet_read","arguments":{"kind":"metrics"}})"));
  ASSERT_TRUE(body["result"]["isError"].GetBool());
  const json::Value& e = error_envelope(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  EXPECT_NE(std::string(*json::get_string(e, "message")).find("system.echo, system.metrics, test.relay"), std::string::npos);
  EXPECT_NE(std::string(*json::get_string(e, "suggested_fix")).find("\"system.metrics\" (the nearest)"), std::string::npos);
}

// "The hottest node" in one small answer (issue 37 item 8): sort_by a pointer into the result,
// highest first, top 2, and only the fields asked for; a node without the value and a node that
// failed come after those with one.
TEST(FleetReadResults, SortsByAPointerKeepsTheTopAndSelectsFields) {
  FleetReadPlan plan;
  for (const char* id : {"n1", "n2", "n3", "n4", "n5"}) plan.targets.push_back(FleetReadTarget{id, nullptr, ""});
  plan.matched = 5;
  plan.shape.fields = {"/cpu_temperature_celsius", "/disk/free"};
  plan.shape.sort_by = "/cpu_temperature_celsius";
  FleetReadResults results(plan);
  results.set_result(0, R"({"cpu_temperature_celsius":48.5,"disk":{"free":10}})");
  results.set_error(1, ErrorEnvelope(ErrorCode::kNodeOffline, "offline", "wait"));
  results.set_result(2, R"({"cpu_temperature_celsius":61,"disk":{"free":3}})");
  results.set_result(3, R"({"disk":{"free":7}})");  // no temperature sensor
  results.set_result(4, R"({"cpu_temperature_celsius":55.0})");
  const json::Document all = results.document();
  std::vector<std::string> ids;
  for (const auto& r : all["results"].GetArray()) ids.emplace_back(r["node_id"].GetString());
  EXPECT_EQ(ids, (std::vector<std::string>{"n3", "n5", "n1", "n2", "n4"}));
  const json::Value& hottest = all["results"][0];
  EXPECT_FALSE(hottest.HasMember("result"));
  EXPECT_EQ(json::to_string(hottest["values"]), R"({"/cpu_temperature_celsius":61,"/disk/free":3})");
  EXPECT_TRUE(all["results"][1]["values"]["/disk/free"].IsNull());  // asked for, not in the result
  EXPECT_EQ(*json::get_int64(all, "ok_count"), 4);

  plan.shape.top = 2;
  plan.shape.ascending = true;
  FleetReadResults coolest(plan);
  coolest.set_result(0, R"({"cpu_temperature_celsius":48.5})");
  coolest.set_result(2, R"({"cpu_temperature_celsius":61})");
  coolest.set_result(4, R"({"cpu_temperature_celsius":55})");
  const json::Document two = coolest.document();
  ASSERT_EQ(two["results"].Size(), 2u);
  EXPECT_EQ(std::string(two["results"][0]["node_id"].GetString()), "n1");
  EXPECT_EQ(std::string(two["results"][1]["node_id"].GetString()), "n5");
  EXPECT_EQ(*json::get_int64(two, "error_count"), 2);  // counted over every node read, not only the top
}

// The shape's arguments are checked before any node is read.
TEST_F(McpTest, FleetReadRefusesAMalformedFieldPointer) {
  const std::string sid = f.open_session(tok);
  const auto body = body_of(*f.rpc(sid, tok, "tools/call",
                                   R"({"name":"fleet_read","arguments":{"kind":"system.echo","fields":["cpu"]}})"));
  ASSERT_TRUE(body["result"]["isError"].GetBool());
  const json::Value& e = error_envelope(body);
  EXPECT_EQ(*json::get_string(e, "code"), "E_INVALID_ARGUMENTS");
  EXPECT_NE(std::string(*json::get_string(e, "message")).find("at /fields/0"), std::string::npos);
}

}  // namespace
}  // namespace fleetmcp::http::testing
