// JSON-RPC framing: classifying a message, the ids a batch uses twice.
#include <gtest/gtest.h>

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {
namespace {

TEST(JsonRpc, ClassifiesMessages) {
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").value()).kind, RpcKind::kRequest);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","method":"notifications/x"})").value()).kind, RpcKind::kNotification);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":"a","result":{}})").value()).kind, RpcKind::kResponse);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":null,"method":"ping"})").value()).kind, RpcKind::kInvalid);
  EXPECT_EQ(classify(json::parse_strict(R"({"id":1,"method":"ping"})").value()).kind, RpcKind::kInvalid);
  EXPECT_EQ(classify(json::parse_strict(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":3})").value()).kind, RpcKind::kInvalid);
}

TEST(JsonRpc, FindsARequestIdABatchUsesTwice) {
  EXPECT_EQ(duplicate_request_id(json::parse_strict(
                R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"1","method":"ping"}])").value()),
            std::nullopt);  // 1 and "1" are different ids
  EXPECT_EQ(duplicate_request_id(json::parse_strict(
                R"([{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},)"
                R"({"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","id":"a","method":"tools/list"}])").value()),
            std::optional<std::string>("\"a\""));  // the response with id "a" is not a request
}

}  // namespace
}  // namespace fleetmcp::http
