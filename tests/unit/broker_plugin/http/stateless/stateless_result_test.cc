// What a 2026-07-28 result carries besides its method's fields.
#include "broker_plugin/http/stateless/stateless_result.h"

#include <gtest/gtest.h>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {
namespace {

// The result of a request of `method` (reading `uri`, for resources/read) as the front stamps it.
json::Document stamped(std::string_view method, std::string_view result_json, std::string_view uri = "fleetmcp://nodes/n1/manifest") {
  json::Document request(rapidjson::kObjectType);
  auto& a = request.GetAllocator();
  json::Value params(rapidjson::kObjectType);
  params.AddMember("uri", json::string_value(uri, a), a);
  request.AddMember("jsonrpc", "2.0", a);
  request.AddMember("id", json::string_value("a\"b", a), a);  // an id that needs escaping
  request.AddMember("method", json::string_value(method, a), a);
  request.AddMember("params", params, a);
  const RpcMessage m = classify(request);
  json::Document result;
  result.Parse(result_json.data(), result_json.size());
  std::string response = rpc_result(*m.id, result);
  stamp_stateless_result(response, id_key(*m.id), stateless_cache_hints(m));
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

// A read of a node's metrics is a fresh sample each time: a client that kept it for the usual 5 s
// would show old figures as new ones.
TEST(StatelessResult, AMetricsReadIsNeverKept) {
  const auto metrics = stamped("resources/read", R"({"contents":[]})", "fleetmcp://nodes/n1/metrics?interval_ms=2000");
  EXPECT_EQ(metrics["result"]["ttlMs"].GetInt64(), 0);
  EXPECT_EQ(*json::get_string(metrics["result"], "cacheScope"), "private");
  EXPECT_EQ(stamped("resources/read", R"({"contents":[]})")["result"]["ttlMs"].GetInt64(), 5000);
}

TEST(StatelessResult, ErrorsAndInputRequiredResultsAreLeftAlone) {
  std::string error = rpc_error(nullptr, rpc::kInvalidParams, "no");
  const std::string before = error;
  stamp_stateless_result(error, "null", R"(,"ttlMs":5000,"cacheScope":"private")");
  EXPECT_EQ(error, before);
  const auto asked = stamped("tools/call", R"({"resultType":"input_required","requestState":"s"})");
  EXPECT_EQ(*json::get_string(asked["result"], "resultType"), "input_required");
}

}  // namespace
}  // namespace fleetmcp::http
