// portable_schema.h: the served rewrite of registry schemas (issue 14 part 4).
#include <gtest/gtest.h>

#include "broker_plugin/http/surface/portable_schema.h"

namespace fleetmcp::http {
namespace {

std::string portable(std::string_view schema) {
  json::Document d = json::parse_strict(schema, ErrorCode::kInternal);
  make_portable(d, d.GetAllocator());
  return json::to_string(d);
}

TEST(PortableSchema, NullableTypeArrayBecomesAnyOfWithTheConstraintsOnTheTypedBranch) {
  EXPECT_EQ(portable(R"({"$schema":"x","$id":"mcp://schemas/a@1.0.0","title":"t","type":"object","properties":{
    "d":{"description":"ms","type":["integer","null"],"minimum":1,"maximum":9}}})"),
            R"({"type":"object","properties":{"d":{"description":"ms","anyOf":[{"type":"integer","minimum":1,"maximum":9},{"type":"null"}]}}})");
}

TEST(PortableSchema, EnumAndConstStayOnEveryBranchSoNullIsNotAdmittedByTheRewrite) {
  EXPECT_EQ(portable(R"({"type":["string","null"],"enum":["a","b"]})"),
            R"({"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null","enum":["a","b"]}]})");
}

TEST(PortableSchema, NestedSchemasEverywhereAreRewrittenAndSingleTypeArraysUnwrapped) {
  EXPECT_EQ(portable(R"({"type":"object","properties":{"l":{"type":"array","items":{"type":["number","string"]}}},
    "$defs":{"x":{"type":["boolean"]}},"anyOf":[{"properties":{"y":{"type":["object","null"],"required":["z"]}}}]})"),
            R"({"type":"object","properties":{"l":{"type":"array","items":{"anyOf":[{"type":"number"},{"type":"string"}]}}},)"
            R"("$defs":{"x":{"type":"boolean"}},"anyOf":[{"properties":{"y":{"anyOf":[{"type":"object","required":["z"]},{"type":"null"}]}}}]})");
}

TEST(PortableSchema, ASchemaWithoutTypeArraysKeepsItsShape) {
  const std::string plain = R"({"type":"object","properties":{"m":{"type":"string","maxLength":4}},"required":["m"]})";
  EXPECT_EQ(portable(plain), plain);
}

}  // namespace
}  // namespace fleetmcp::http
