// What a 2026-07-28 result carries besides its method's fields.
#include "broker_plugin/http/stateless/stateless_result.h"

#include <gtest/gtest.h>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {
namespace {

json::Document stamped(std::string_view method, std::string_view result_json) {
  json::Document id;
  id.SetString("a\"b", id.GetAllocator());  // an id that needs escaping
  json::Document result;
  result.Parse(result_json.data(), result_json.size());
  std::string response = rpc_result(id, result);
  stamp_stateless_result(response, id_key(id), method);
  json::Document d;
  d.Parse(response.c_str());
  return d;
}

TEST(StatelessResult, EveryResultSaysItIsComplete) {
  const auto call = stamped("tools/call", R"({"content":[],"isError":false})");
  EXPECT_EQ(*json::get_string(call["result"], "resultType"), "complete");
  EXPECT_FALSE(call["result"].HasMember("ttlMs"));
  EXPECT_EQ(*json::get_string(stamped("completion/complete", "{}")["result"], "resultType"), "complete");
}

TEST(StatelessResult, CacheableResultsCarryTheHints) {
  for (const std::string_view method : {"tools/list", "resources/list", "resources/read"}) {
    const auto d = stamped(method, R"({"x":[]})");
    EXPECT_EQ(*json::get_string(d["result"], "cacheScope"), "private") << method;
    EXPECT_GE(d["result"]["ttlMs"].GetInt64(), 0);
    EXPECT_TRUE(d["result"]["x"].IsArray());
  }
  for (const std::string_view method : {"server/discover", "prompts/list", "resources/templates/list"}) {
    EXPECT_EQ(*json::get_string(stamped(method, "{}")["result"], "cacheScope"), "public") << method;
  }
}

TEST(StatelessResult, ErrorsAndInputRequiredResultsAreLeftAlone) {
  std::string error = rpc_error(nullptr, rpc::kInvalidParams, "no");
  const std::string before = error;
  stamp_stateless_result(error, "null", "tools/list");
  EXPECT_EQ(error, before);
  const auto asked = stamped("tools/call", R"({"resultType":"input_required","requestState":"s"})");
  EXPECT_EQ(*json::get_string(asked["result"], "resultType"), "input_required");
}

}  // namespace
}  // namespace fleetmcp::http
