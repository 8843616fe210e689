// completion/complete (completions.h): the tenant's node ids, a node's cap_ids, the kinds; nothing
// for an argument it does not know or a prompt that does not exist.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/front_test_suites.h"

namespace fleetmcp::http::testing {
namespace {

std::vector<std::string> values(FrontFixture& f, const std::string& sid, const std::string& t, const std::string& params) {
  const auto body = body_of(*f.rpc(sid, t, "completion/complete", params));
  std::vector<std::string> out;
  if (!body.HasMember("result")) {
    ADD_FAILURE() << json::to_string(body);
    return out;
  }
  for (const auto& v : body["result"]["completion"]["values"].GetArray()) out.emplace_back(v.GetString());
  EXPECT_EQ(body["result"]["completion"]["total"].GetUint64(), out.size());
  return out;
}

TEST_F(McpTest, CompletionOffersTheTenantsNodesCapIdsAndKinds) {
  const std::string sid = f.open_session(tok);
  const std::string prompt = R"({"ref":{"type":"ref/prompt","name":"safe_actuation"},"argument":)";
  EXPECT_EQ(values(f, sid, tok, prompt + R"({"name":"node_id","value":""}})"),
            (std::vector<std::string>{std::string(kNode2), std::string(kNode)}));  // not kOther's tenant
  EXPECT_EQ(values(f, sid, tok, prompt + R"({"name":"node_id","value":"01hzx9k3m4p7q8r9s0t1v2w3xy"}})"),
            (std::vector<std::string>{std::string(kNode)}));
  EXPECT_EQ(values(f, sid, tok, prompt + R"({"name":"cap_id","value":"re"},"context":{"arguments":{"node_id":")" +
                                    std::string(kNode) + R"("}}})"),
            (std::vector<std::string>{"relay0"}));
  EXPECT_EQ(values(f, sid, tok, R"({"ref":{"type":"ref/prompt","name":"fleet_health_report"},"argument":{"name":"kind","value":"system.m"}})"),
            (std::vector<std::string>{"system.metrics"}));
  EXPECT_EQ(values(f, sid, tok, R"({"ref":{"type":"ref/resource","uri":"fleetmcp://nodes/{node_id}/manifest"},"argument":{"name":"node_id","value":"01hzx9k3m4p7q8r9s0t1v2w3xa"}})"),
            (std::vector<std::string>{std::string(kNode2)}));
  // The other tenant sees its own node only.
  const std::string other = f.token("other");
  EXPECT_EQ(values(f, f.open_session(other), other, prompt + R"({"name":"node_id","value":""}})"),
            (std::vector<std::string>{std::string(kOther)}));
  // A prompt that does not exist completes to nothing (the conformance suite's expectation).
  EXPECT_TRUE(values(f, sid, tok, R"({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"t"}})").empty());
  const auto bad = body_of(*f.rpc(sid, tok, "completion/complete", R"({"ref":{"type":"ref/tool"},"argument":{"name":"x","value":""}})"));
  EXPECT_EQ(bad["error"]["code"].GetInt(), rpc::kInvalidParams) << json::to_string(bad);
}

}  // namespace
}  // namespace fleetmcp::http::testing
