// Keyword renaming (keyword_renaming.h): the four keywords are renamed where they are keywords,
// and only there; a pattern carries its sibling maxLength.
#include "common/registry/keyword_renaming.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/base/json.h"

namespace fleetmcp {
namespace {

std::string renamed(std::string_view schema) {
  auto doc = json::parse_strict(schema).value();
  schema_check::rename_keywords(doc, doc.GetAllocator());
  return json::to_string(doc);
}

TEST(KeywordRenaming, RenamesTheFourKeywordsInSchemaPositions) {
  EXPECT_EQ(renamed(R"({"type":"object","const":1,"enum":[1],"pattern":"^a$"})"),
            R"({"x-fleetmcp-type":"object","x-fleetmcp-const":1,"x-fleetmcp-enum":[1],)"
            R"("x-fleetmcp-pattern":{"regex":"^a$"}})");
  // Every place a subschema can be: properties, $defs, items (one or a list), allOf/anyOf/oneOf,
  // not, if/then/else, additionalProperties.
  EXPECT_EQ(renamed(R"({"properties":{"a":{"type":"string"}},"$defs":{"D":{"enum":[2]}},"items":{"const":3},)"
                    R"("anyOf":[{"type":"null"}],"not":{"type":"array"},"if":{"const":4},"then":{"const":5},)"
                    R"("else":{"const":6},"additionalProperties":{"type":"integer"}})"),
            R"({"properties":{"a":{"x-fleetmcp-type":"string"}},"$defs":{"D":{"x-fleetmcp-enum":[2]}},)"
            R"("items":{"x-fleetmcp-const":3},"anyOf":[{"x-fleetmcp-type":"null"}],"not":{"x-fleetmcp-type":"array"},)"
            R"("if":{"x-fleetmcp-const":4},"then":{"x-fleetmcp-const":5},"else":{"x-fleetmcp-const":6},)"
            R"("additionalProperties":{"x-fleetmcp-type":"integer"}})");
  EXPECT_EQ(renamed(R"({"items":[{"type":"string"},{"type":"integer"}]})"),
            R"({"items":[{"x-fleetmcp-type":"string"},{"x-fleetmcp-type":"integer"}]})");
}

// A property *named* "pattern" or "type", and the keywords inside a const or enum value, are data.
TEST(KeywordRenaming, LeavesNamesAndValuesAlone) {
  EXPECT_EQ(renamed(R"({"properties":{"pattern":{"type":"string"},"type":{}},"required":["type"]})"),
            R"({"properties":{"pattern":{"x-fleetmcp-type":"string"},"type":{}},"required":["type"]})");
  EXPECT_EQ(renamed(R"({"const":{"type":"x","enum":[1]},"enum":[{"pattern":"y"}]})"),
            R"({"x-fleetmcp-const":{"type":"x","enum":[1]},"x-fleetmcp-enum":[{"pattern":"y"}]})");
  EXPECT_EQ(renamed("true"), "true");  // a boolean schema
}

// The matcher must know the longest string it may be handed: the pattern takes maxLength along.
TEST(KeywordRenaming, APatternCarriesItsSiblingMaxLength) {
  EXPECT_EQ(renamed(R"({"maxLength":64,"pattern":"^[a-z]+$"})"),
            R"({"maxLength":64,"x-fleetmcp-pattern":{"regex":"^[a-z]+$","maxLength":64}})");
  EXPECT_EQ(renamed(R"({"pattern":"^[a-z]+$","maxLength":8})"),
            R"({"x-fleetmcp-pattern":{"regex":"^[a-z]+$","maxLength":8},"maxLength":8})");
  EXPECT_EQ(renamed(R"({"pattern":"^[a-z]+$","maxLength":-1})"),
            R"({"x-fleetmcp-pattern":{"regex":"^[a-z]+$"},"maxLength":-1})");  // not a length: none
}

}  // namespace
}  // namespace fleetmcp
