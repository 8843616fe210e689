// portable_schema.h: the served rewrite of registry schemas (issue 14 part 4).
#include <gtest/gtest.h>

#include "broker_plugin/http/surface/portable_schema.h"

namespace fleetmcp::http {
namespace {

std::string portable(std::string_view schema) {
  json::Document d = json::parse_strict(schema, ErrorCode::kInternal).value();
  make_portable(d, d.GetAllocator());
  return json::to_string(d);
}

TEST(PortableSchema, NullableTypeArrayBecomesAnyOfWithTheConstraintsOnTheTypedBranch) {
  EXPECT_EQ(portable(R"({"$schema":"x","$id":"mcp://schemas/a@1.0.0","title":"t","type":"object","properties":{
    "d":{"description":"ms","type":["integer","null"],"minimum":1,"maximum":9}}})"),
            R"({"type":"object","properties":{"d":{"description":"ms","anyOf":[{"type":"integer","minimum":1,"maximum":9},{"type":"null"}]}}})");
}

TEST(PortableSchema, EachBranchListsOnlyTheEnumValuesOfItsOwnType) {
  // gpio.pin.state's value: high, low or null.
  EXPECT_EQ(portable(R"({"type":["string","null"],"enum":["high","low",null]})"),
            R"({"anyOf":[{"type":"string","enum":["high","low"]},{"type":"null"}]})");
  EXPECT_EQ(portable(R"({"type":["integer","string"],"enum":[1,"a",2.5]})"),
            R"({"anyOf":[{"type":"integer","enum":[1]},{"type":"string","enum":["a"]}]})");
}

TEST(PortableSchema, ABranchNoValueIsLeftForGoesSoNullIsNotAdmittedByTheRewrite) {
  EXPECT_EQ(portable(R"({"type":"object","properties":{"v":{"description":"d","type":["string","null"],"enum":["a","b"]}}})"),
            R"({"type":"object","properties":{"v":{"description":"d","type":"string","enum":["a","b"]}}})");
  EXPECT_EQ(portable(R"({"type":["string","null"],"const":"a"})"), R"({"type":"string","const":"a"})");
}

// An empty `required` constrains nothing; the served list pays no tokens for it (issue 37: adding
// labels and fields does not grow tools/list). A non-empty one stays.
TEST(PortableSchema, AnEmptyRequiredGoes) {
  EXPECT_EQ(portable(R"({"type":"object","properties":{"o":{"type":"object","properties":{},"required":[]}},"required":[]})"),
            R"({"type":"object","properties":{"o":{"type":"object","properties":{}}}})");
  EXPECT_EQ(portable(R"({"type":"object","required":["a"]})"), R"({"type":"object","required":["a"]})");
}

TEST(PortableSchema, DescriptionsLoseTheirCitationsAndTheTopOneGoes) {
  EXPECT_EQ(portable(R"({"description":"Arguments of x (Doc 05 §5.3 gpio.write_pin).","type":"object","properties":{
    "s":{"type":"string","description":"Which step of the Doc 05 §4.3 fallback chain gave t; absent with it."},
    "r":{"type":"string","description":"Fields of Doc 05 addendum §2.1 (RFC-0001 §4). Plain."}}})"),
            R"({"type":"object","properties":{"s":{"type":"string","description":"Which step of the fallback chain gave t; absent with it."},)"
            R"("r":{"type":"string","description":"Fields of. Plain."}}})");
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
