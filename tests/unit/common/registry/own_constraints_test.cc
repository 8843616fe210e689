// The registry's own "pattern", "const", "enum" and "type" (own_constraints.h): what a caller sees
// when a value fails them, the bound on what a pattern is run over, an unusable keyword refused
// saying which, and their messages through valijson's own walk.
#include "common/registry/own_constraints.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/registry/fast_visitor.h"
#include "common/registry/schema_registry.h"
#include "tests/support/common/schema_registry_fixture.h"

namespace fleetmcp {
namespace {

using schema_check::fast_validate;
using testing::capability;
using testing::compile_schema;
using testing::kManifest;
using testing::manifest;
using testing::SchemaRegistryTest;

// What the fast walk reports for `doc` (JSON text) against `schema`: "" when valid.
std::string failure_of(const valijson::Schema& schema, std::string_view doc) {
  const auto failure = fast_validate(schema, json::parse_strict(doc).value());
  return failure ? failure->path + ": " + failure->message : "";
}

// The message valijson's parser throws for `schema`, or "" when it compiles.
std::string refusal_of(std::string_view schema) {
  try {
    compile_schema(schema);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(OwnConstraints, FailuresNameTheConstraint) {
  const auto schema = compile_schema(R"({"type": "object", "properties": {
      "id": {"type": "string", "pattern": "^[a-z]+$"},
      "mode": {"const": "read_only"},
      "verb": {"enum": ["get", "set"]},
      "count": {"type": ["integer", "null"]}}})");
  EXPECT_EQ(failure_of(*schema, R"({"id": "abc", "mode": "read_only", "verb": "set", "count": null})"), "");
  EXPECT_EQ(failure_of(*schema, R"({"id": "aBc"})"),
            "/id: does not match pattern ^[a-z]+$ (or is longer than 1024 characters)");
  EXPECT_EQ(failure_of(*schema, R"({"mode": "reversible"})"), "/mode: must be \"read_only\"");
  EXPECT_EQ(failure_of(*schema, R"({"verb": "run"})"), "/verb: is not one of the allowed values: \"get\", \"set\"");
  EXPECT_EQ(failure_of(*schema, R"({"count": "1"})"), "/count: must be of type integer or null");
  EXPECT_EQ(failure_of(*schema, R"([])"), ": must be of type object");
}

// "integer" is an integer literal: the code reading validated documents uses GetInt64.
TEST(OwnConstraints, IntegerMeansAnIntegerLiteral) {
  const auto schema = compile_schema(R"({"type": "integer"})");
  EXPECT_EQ(failure_of(*schema, "5"), "");
  EXPECT_EQ(failure_of(*schema, "-5"), "");
  EXPECT_EQ(failure_of(*schema, "5.0"), ": must be of type integer");
  EXPECT_EQ(failure_of(*schema, "true"), ": must be of type integer");
}

// A string longer than the schema's maxLength beside the pattern is refused without matching.
TEST(OwnConstraints, APatternIsRunOnlyOverStringsWithinTheSchemasMaxLength) {
  const auto bounded = compile_schema(R"({"type": "string", "pattern": "^[a-z]+$", "maxLength": 3})");
  EXPECT_EQ(failure_of(*bounded, R"("abc")"), "");
  EXPECT_EQ(failure_of(*bounded, R"("aB")"), ": does not match pattern ^[a-z]+$ (or is longer than 3 characters)");
  const auto unbounded = compile_schema(R"({"type": "string", "pattern": "^a+$"})");
  EXPECT_EQ(failure_of(*unbounded, "\"" + std::string(schema_check::kLongestUnboundedMatch, 'a') + "\""), "");
  EXPECT_NE(failure_of(*unbounded, "\"" + std::string(schema_check::kLongestUnboundedMatch + 1, 'a') + "\""), "");
}

TEST(OwnConstraints, AnUnusableKeywordIsRefusedSayingWhich) {
  EXPECT_EQ(refusal_of(R"({"type": "string", "pattern": "^[a-z]+$"})"), "");
  EXPECT_EQ(refusal_of(R"({"pattern": 5})"), "'pattern' must be a string");
  EXPECT_EQ(refusal_of(R"({"pattern": "("})").rfind("'pattern' ( is not a supported regex: ", 0), 0u);
  EXPECT_EQ(refusal_of(R"({"enum": []})"), "'enum' must be a non-empty array");
  EXPECT_EQ(refusal_of(R"({"type": "float"})"), "'type' names an unknown type");
  EXPECT_EQ(refusal_of(R"({"type": ["string", 1]})"), "'type' names an unknown type");
  EXPECT_EQ(refusal_of(R"({"type": []})"), "'type' is empty");
}

// Inside a keyword the fast walk hands over (here "not"), valijson's own visitor runs our
// constraints: the failure carries our marker and our words.
TEST(OwnConstraints, ValijsonsOwnWalkReportsOurMessages) {
  const auto schema = compile_schema(R"({"not": {"enum": [1, 2]}, "anyOf": [{"const": 7}, {"const": 8}]})");
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  EXPECT_FALSE(validator.validate(*schema, valijson::adapters::RapidJsonAdapter(json::parse_strict("9").value()),
                                  &results));
  std::vector<std::string> ours;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    if (!error.description.empty() && error.description[0] == schema_check::OwnCheck::kOwnMessage) {
      ours.push_back(error.description.substr(1));
    }
  }
  std::sort(ours.begin(), ours.end());
  EXPECT_EQ(ours, (std::vector<std::string>{"must be 7", "must be 8"}));
}

// Issue 17 item 2: a device-chosen schema_ref of 64 KB ("a" + ".a" x 32248) once drove the
// backtracking matcher into one stack frame per repetition and crashed the broker thread. The
// check runs here on a thread with a 256 KiB stack: it must refuse the string, not overflow.
TEST_F(SchemaRegistryTest, HugeSchemaRefIsRefusedInSmallStack) {
  std::string ref = "mcp://schemas/a";
  for (int i = 0; i < 32248; ++i) ref += ".a";
  ref += "@1.0.0";
  const auto doc = json::parse_strict(manifest({capability("echo", "system.echo", R"(["invoke"])", "read_only",
                                                           R"({"rate_limit_rps":10})", ref)})).value();
  struct Job {
    const json::Document* doc;
    std::optional<ValidationFailure> failure;
  } job{&doc, std::nullopt};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  auto* j = static_cast<Job*>(arg);
                  j->failure = reg().validate(kManifest, *j->doc);
                  return nullptr;
                },
                &job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  ASSERT_TRUE(job.failure.has_value());
  EXPECT_EQ(job.failure->path, "/capabilities/0/schema_ref");
  EXPECT_NE(job.failure->message.find("longer than 1024 characters"), std::string::npos) << job.failure->message;
}

}  // namespace
}  // namespace fleetmcp
