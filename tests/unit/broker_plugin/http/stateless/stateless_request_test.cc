// How /mcp tells a 2026-07-28 request from a 2025 one, and the transport checks on it, in the order
// the revision gives them.
#include "broker_plugin/http/stateless/stateless_request.h"

#include <gtest/gtest.h>

namespace fleetmcp::http {
namespace {

constexpr std::string_view kMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

struct Probe {
  json::Document body;
  HttpRequest request;
  RpcMessage message;
  Probe(std::string_view json_text, std::vector<Header> headers) {
    body.Parse(json_text.data(), json_text.size());
    request.method = "POST";
    request.headers = std::move(headers);
    message = classify(body);
  }
};

std::string call(std::string_view name, std::string_view meta = kMeta) {
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")" + std::string(name) +
         R"(","arguments":{},)" + std::string(meta) + "}}";
}

std::vector<Header> headers(std::string_view method, std::optional<std::string_view> name = std::nullopt,
                            std::string_view version = "2026-07-28") {
  std::vector<Header> h{{"MCP-Protocol-Version", std::string(version)}, {"Mcp-Method", std::string(method)}};
  if (name) h.emplace_back("Mcp-Name", std::string(*name));
  return h;
}

TEST(StatelessRequest, TheBodysMetaOrTheVersionHeaderChoosesTheRevision) {
  EXPECT_TRUE(asks_stateless(Probe(call("t"), {}).request, Probe(call("t"), {}).message));
  const Probe legacy(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", {{"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_FALSE(asks_stateless(legacy.request, legacy.message));
  const Probe header_only(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", {{"mcp-protocol-version", " 2026-07-28"}});
  EXPECT_TRUE(asks_stateless(header_only.request, header_only.message));
}

TEST(StatelessRequest, AWellFormedRequestPasses) {
  const Probe p(call("fleet_find_nodes"), headers("tools/call", "  fleet_find_nodes "));
  const auto checked = check_stateless(p.request, p.message);
  ASSERT_TRUE(checked);
  EXPECT_EQ(checked->revision, McpRevision::k2026_07_28);
  ASSERT_NE(checked->client_capabilities, nullptr);
  EXPECT_TRUE(checked->client_capabilities->IsObject());
}

TEST(StatelessRequest, AMissingEnvelopeIsInvalidParams) {
  for (const std::string& meta : {std::string(R"("_meta":{})"),
                                 std::string(R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"})"),
                                 std::string(R"("_meta":{"io.modelcontextprotocol/clientCapabilities":{}})")}) {
    const Probe p(call("t", meta), headers("tools/call", "t"));
    const auto checked = check_stateless(p.request, p.message);
    ASSERT_FALSE(checked) << meta;
    EXPECT_EQ(checked.error().status, 400);
    EXPECT_EQ(checked.error().code, rpc::kInvalidParams);
  }
}

TEST(StatelessRequest, HeadersThatDisagreeWithTheBodyAreAHeaderMismatch) {
  const std::vector<std::vector<Header>> wrong{
      headers("tools/call", "t", "2025-11-25"),  // version header against the body's
      {{"Mcp-Method", "tools/call"}, {"Mcp-Name", "t"}},  // no version header
      headers("tools/list", "t"),  // method
      headers("TOOLS/CALL", "t"),  // values are case-sensitive
      {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Name", "t"}},  // no Mcp-Method
      headers("tools/call", "u"),  // name
      headers("tools/call"),  // no Mcp-Name
  };
  for (const auto& h : wrong) {
    const Probe p(call("t"), h);
    const auto checked = check_stateless(p.request, p.message);
    ASSERT_FALSE(checked);
    EXPECT_EQ(checked.error().status, 400);
    EXPECT_EQ(checked.error().code, rpc::kHeaderMismatch) << checked.error().message;
  }
}

TEST(StatelessRequest, AnUnsupportedVersionListsOursAndEchoesTheAsked) {
  const std::string meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}})";
  const Probe p(call("t", meta), headers("tools/call", "t", "v999"));
  const auto checked = check_stateless(p.request, p.message);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().status, 400);
  EXPECT_EQ(checked.error().code, rpc::kUnsupportedProtocolVersion);
  json::Document body;
  const std::string text = refusal_body(checked.error(), p.message.id);
  body.Parse(text.c_str());
  EXPECT_EQ(body["id"].GetInt(), 7);
  EXPECT_EQ(*json::get_string(body["error"]["data"], "requested"), "v999");
  EXPECT_EQ(std::string(body["error"]["data"]["supported"][0].GetString()), "2026-07-28");
}

TEST(StatelessRequest, WhatTheRevisionRemovedIsNotFound) {
  for (const std::string_view method : {"initialize", "ping", "logging/setLevel", "resources/subscribe", "roots/list", "no/such"}) {
    const Probe p(R"({"jsonrpc":"2.0","id":1,"method":")" + std::string(method) + R"(","params":{)" + std::string(kMeta) + "}}",
                  headers(method));
    const auto checked = check_stateless(p.request, p.message);
    ASSERT_FALSE(checked) << method;
    EXPECT_EQ(checked.error().status, 404);
    EXPECT_EQ(checked.error().code, rpc::kMethodNotFound);
  }
}

}  // namespace
}  // namespace fleetmcp::http
