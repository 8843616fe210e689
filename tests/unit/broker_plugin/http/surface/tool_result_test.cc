// Tool results: structured content and its text.
#include <gtest/gtest.h>
#include <rapidjson/writer.h>

#include "broker_plugin/http/base/jsonrpc.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "broker_plugin/http/surface/tool_result.h"
#include "tests/unit/common/base/writer_reference.h"

namespace fleetmcp::http {
namespace {

// The answer as a document RapidJSON's Writer serialises: what rpc_tool_success and rpc_result
// must equal byte for byte.
std::string written_answer(const json::Value& id, const json::Value& result) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("jsonrpc", "2.0", a);
  json::Value id_copy, result_copy;
  id_copy.CopyFrom(id, a);
  result_copy.CopyFrom(result, a);
  d.AddMember("id", id_copy, a);
  d.AddMember("result", result_copy, a);
  return fleetmcp::testing::written_by_rapidjson(d);  // escaping byte by byte: writer_reference.h
}

// The preview is image content once: the text block leaves its base64 out (structuredContent keeps
// it, as the output schema requires); a linked photo follows as resource_link content.
TEST(ToolResult, AnImagePreviewIsImageContentOnceAndTheLinkFollows) {
  constexpr std::string_view kShot =
      R"({"file_path":"/var/lib/fleetmcp/cam-1.jpg","preview":{"mime_type":"image/jpeg","width":2,"height":2,"data_base64":"/9j/4AAQ"}})";
  const ResourceLink link{"fleetmcp://nodes/n1/photos/p1", "photo from node n1", "image/jpeg", 6};
  const auto r = tool_success(kShot, kLatestRevision, &link);
  ASSERT_EQ(r["content"].Size(), 3u);
  EXPECT_STREQ(r["content"][0]["type"].GetString(), "text");
  EXPECT_EQ(std::string(r["content"][0]["text"].GetString()).find("/9j/4AAQ"), std::string::npos);
  EXPECT_NE(std::string(r["content"][0]["text"].GetString()).find("cam-1.jpg"), std::string::npos);
  EXPECT_STREQ(r["content"][1]["type"].GetString(), "image");
  EXPECT_STREQ(r["content"][1]["data"].GetString(), "/9j/4AAQ");
  EXPECT_STREQ(r["content"][1]["mimeType"].GetString(), "image/jpeg");
  EXPECT_STREQ(r["content"][2]["type"].GetString(), "resource_link");
  EXPECT_STREQ(r["content"][2]["uri"].GetString(), "fleetmcp://nodes/n1/photos/p1");
  EXPECT_STREQ(r["structuredContent"]["preview"]["data_base64"].GetString(), "/9j/4AAQ");
  // Before 2025-06-18 there is no resource_link content.
  EXPECT_EQ(tool_success(kShot, McpRevision::k2025_03_26, &link)["content"].Size(), 2u);
  EXPECT_EQ(tool_success(R"({"message":"x"})", kLatestRevision)["content"].Size(), 1u);
}

TEST(ToolResult, TheAnswerWrittenWithoutParsingIsTheSameBytes) {
  // Every id classify() accepts on a request: integers (negative, 0, the int64 and uint64 ends)
  // and strings (empty, escapes, control characters, non-ASCII UTF-8).
  const char* ids[] = {"1", "-7", "0", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
                       R"("")", R"("req-\u00e9\"1\\ \n\t\u0001\u001f\u007f/\ud83d\ude00")", R"("abc")"};
  // As the core hands results over: json::to_string of what it parsed.
  const char* results[] = {
      R"({"message":"a \"quoted\" \\ line\nnext \u0001 caf\u00e9 \ud83d\ude00"})",
      R"({"c":"\u0000\u0008\u000c\r\t\u001b\u007f","k\"\\":"</script>","u":"\u00ff\u4e2d\uffff"})",
      R"({"n":-0.0,"big":18446744073709551615,"x":1e300,"y":0.1,"z":[1,2.5,{"k":null}],"t":true})",
      R"({"preview":{"mime_type":"image/png","data_base64":"iVBO"},"file_path":"/x"})",
      R"({"note":"not a \"preview\" member","preview":3})",
      "{}"};
  for (const char* id_text : ids) {
    const json::Document id = json::parse_strict(id_text).value();
    ASSERT_TRUE(classify(json::parse_strict(R"({"jsonrpc":"2.0","method":"x","id":)" + std::string(id_text) + "}").value())
                    .kind == RpcKind::kRequest)
        << id_text;
    for (const char* written : results) {
      const std::string result = json::to_string(json::parse_strict(written).value());
      for (const McpRevision revision : {McpRevision::k2025_03_26, McpRevision::k2025_06_18, McpRevision::k2025_11_25}) {
        const json::Document success = tool_success(result, revision);
        const std::string expected = written_answer(id, success);
        EXPECT_EQ(rpc_tool_success(id_key(id), result, revision), expected) << id_text << " " << result;
        EXPECT_EQ(rpc_result(id, success), expected) << id_text << " " << result;
        EXPECT_EQ(rpc_result(id_key(id), success), expected) << id_text << " " << result;
      }
    }
  }
}

}  // namespace
}  // namespace fleetmcp::http
