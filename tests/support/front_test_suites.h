// The gtest fixtures of the front's test suites that span several test files (a suite's TEST_Fs
// must share one fixture type): McpTest (what an MCP client sees, through FrontHandler) and
// RoutesTest (the routes around MCP), with the echo call most of them make and the 2026-07-28
// request (stateless()).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/front_fixture.h"

namespace fleetmcp::http::testing {

inline std::string echo_call(std::string_view tool, std::string_view message = "hi") {
  return R"({"name":")" + std::string(tool) + R"(","arguments":{"message":")" + std::string(message) + R"("}})";
}

inline std::string echo_tool(std::string_view node = kNode) { return "sysecho." + std::string(node) + ".echo.invoke"; }

// The commit token a two-phase refusal offers in its suggested_fix ("" if none).
inline std::string commit_token_in(std::string_view fix) {
  const size_t at = fix.find("commit_token=\"");
  return at == std::string::npos ? "" : std::string(fix.substr(at + 14, fix.find('"', at + 14) - at - 14));
}
// ... in an MCP tools/call result.
inline std::string commit_token_of(const json::Document& body) {
  return commit_token_in(*json::get_string(body["result"]["_meta"]["io.fleetmcp/error"], "suggested_fix"));
}

// A 2026-07-28 request: no session, its revision and capabilities in its _meta, the headers the
// revision requires (docs/http-front.md, "Revisions").
inline std::shared_ptr<MemoryExchange> stateless(FrontFixture& f, const std::string& bearer, std::string_view method,
                                                 std::string_view params_json = "{}", std::vector<Header> extra = {},
                                                 std::string_view capabilities = "{}") {
  auto params = json::parse_strict(params_json).value();
  json::Document meta(rapidjson::kObjectType);
  meta.Parse((R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":)" +
              std::string(capabilities) + "}").c_str());
  params.AddMember("_meta", json::Value(meta, params.GetAllocator()), params.GetAllocator());
  std::vector<Header> headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", std::string(method)}};
  for (const char* field : {"name", "uri"}) {
    if (const auto name = json::get_string(params, field)) headers.emplace_back("Mcp-Name", std::string(*name));
  }
  for (auto& h : extra) {
    std::erase_if(headers, [&h](const Header& mine) { return mine.first == h.first; });
    if (!h.second.empty()) headers.push_back(std::move(h));
  }
  return f.post_mcp(R"({"jsonrpc":"2.0","id":5,"method":")" + std::string(method) + R"(","params":)" +
                        json::to_string(params) + "}",
                    "", bearer, std::move(headers));
}

class McpTest : public ::testing::Test {
 protected:
  FrontFixture f;
  std::string tok = f.token();
};

class RoutesTest : public ::testing::Test {
 protected:
  FrontFixture f;
  std::shared_ptr<MemoryExchange> get(std::string target, std::vector<Header> headers = {}) {
    return f.send(HttpRequest{"GET", std::move(target), std::move(headers), ""});
  }
};

}  // namespace fleetmcp::http::testing
