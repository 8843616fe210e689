// The fast walk (fast_visitor.h) against stock valijson: both agree on every single-point
// mutation of valid documents, keywords the walk hands to valijson still work (with our own
// constraints inside them), and the walk's speed, printed.
#include "common/registry/fast_visitor.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/registry/schema_registry.h"
#include "tests/support/common/schema_registry_fixture.h"

namespace fleetmcp {
namespace {

using schema_check::fast_validate;
using testing::capability;
using testing::compile_schema;
using testing::kEchoCap;
using testing::kManifest;
using testing::kMetricsCap;
using testing::manifest;
using testing::Oracle;
using testing::SchemaRegistryTest;
using testing::TempSchemas;

// Where a failure is: a JSON pointer to the deepest value that failed (escaped, indices counted),
// its message naming the constraint; an "if" that fails is a test, never the failure reported.
TEST(FastVisitor, ReportsTheDeepestFailureAndWhere) {
  const auto schema = compile_schema(R"({"type": "object", "required": ["a/b"], "additionalProperties": false,
      "properties": {"a/b": {"type": "array", "maxItems": 3, "items": {"type": "integer", "maximum": 5}},
                     "n": {"if": {"minimum": 10}, "then": {"multipleOf": 10}, "else": {"minimum": 0}}}})");
  const auto failure = [&](std::string_view text) {
    const auto f = fast_validate(*schema, json::parse_strict(text).value());
    return f ? f->path + ": " + f->message : "";
  };
  EXPECT_EQ(failure(R"({"a/b": [1, 5], "n": 20})"), "");
  EXPECT_EQ(failure(R"({"a/b": [1, 9]})"), "/a~1b/1: exceeds maximum 5");
  EXPECT_EQ(failure(R"({"a/b": [1, 2, 3, 4]})"), "/a~1b: has more items than maxItems 3");
  EXPECT_EQ(failure(R"({})"), ": is missing required property \"a/b\"");
  EXPECT_EQ(failure(R"({"a/b": [], "zz": 1})"), ": has a property the schema does not allow (allowed: a/b, n)");
  EXPECT_EQ(failure(R"({"a/b": [], "n": -1})"), "/n: is below minimum 0");
  EXPECT_EQ(failure(R"({"a/b": [], "n": 15})").rfind("/n: ", 0), 0u);
}

// Keywords the published documents do not use go through valijson's own walk; they must still
// work, with our pattern/const/enum/type constraints inside them.
TEST(SchemaRegistryKeywords, KeywordsOutsideTheFastPathStillWork) {
  TempSchemas tmp;
  tmp.add("mcp://schemas/test.keywords@1.0.0", "test.keywords@1.0.0.json", R"({
    "$id": "mcp://schemas/test.keywords@1.0.0",
    "type": "object",
    "properties": {
      "any": { "anyOf": [ { "type": "string", "pattern": "^a+$" }, { "type": "integer", "enum": [1, 2] } ] },
      "one": { "oneOf": [ { "const": "x" }, { "type": "string", "maxLength": 1 } ] },
      "nope": { "not": { "type": "string" } },
      "has": { "type": "array", "contains": { "const": 7 } },
      "tuple": { "type": "array", "items": [ { "type": "string" }, { "type": "integer" } ], "additionalItems": false },
      "multiple": { "type": "number", "multipleOf": 0.5 },
      "date": { "type": "string", "format": "date" },
      "map": { "type": "object", "patternProperties": { "^k[0-9]$": { "type": "integer" } },
               "additionalProperties": false, "propertyNames": { "maxLength": 2 }, "minProperties": 1 },
      "extra": { "type": "object", "additionalProperties": { "type": "string", "pattern": "^[a-z]+$" } },
      "dep": { "type": "object", "dependencies": { "a": ["b"] } },
      "nothing": false
    }
  })");
  const auto reg = SchemaRegistry::load(tmp.dir().string());
  const Oracle oracle(tmp.dir());
  const std::vector<std::pair<std::string, bool>> docs{
      {R"({})", true},
      {R"({"any":"aaa"})", true},         {R"({"any":2})", true},            {R"({"any":"ab"})", false},
      {R"({"any":3})", false},            {R"({"one":"y"})", true},          {R"({"one":"x"})", false},
      {R"({"one":"yy"})", false},         {R"({"nope":1})", true},           {R"({"nope":"s"})", false},
      {R"({"has":[1,7]})", true},         {R"({"has":[1]})", false},         {R"({"tuple":["a",1]})", true},
      {R"({"tuple":["a",1,2]})", false},  {R"({"tuple":[1,1]})", false},     {R"({"multiple":1.5})", true},
      {R"({"multiple":1.25})", false},    {R"({"date":"2026-04-21"})", true}, {R"({"date":"2026-13-01"})", false},
      {R"({"map":{"k1":1}})", true},      {R"({"map":{"k1":"x"}})", false},  {R"({"map":{"zz":1}})", false},
      {R"({"map":{}})", false},           {R"({"extra":{"a":"abc"}})", true}, {R"({"extra":{"a":"ABC"}})", false},
      {R"({"dep":{"a":1,"b":2}})", true}, {R"({"dep":{"a":1}})", false},     {R"({"nothing":1})", false},
  };
  for (const auto& [text, valid] : docs) {
    const auto doc = json::parse_strict(text).value();
    const auto failure = reg->validate("test.keywords@1.0.0", doc);
    EXPECT_EQ(!failure.has_value(), valid) << text << (failure ? " -> " + failure->path + ": " + failure->message : "");
    EXPECT_EQ(oracle.valid("test.keywords@1.0.0", doc), valid) << "stock valijson: " << text;
    if (failure) {
      EXPECT_FALSE(failure->message.empty()) << text;
    }
  }
  // Failures inside valijson's walk still name the field and the constraint.
  const auto f = reg->validate("test.keywords@1.0.0", json::parse_strict(R"({"extra":{"a":"ABC"}})").value());
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->path, "/extra/a");
  EXPECT_EQ(f->message, "does not match pattern ^[a-z]+$ (or is longer than 1024 characters)");
  const auto g = reg->validate("test.keywords@1.0.0", json::parse_strict(R"({"nothing":1})").value());
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->path, "/nothing");
}

// ------------------------------------------------------------------------------------------
// The registry's walk and stock valijson agree on every single-point mutation of valid documents.

// Calls fn(document) for every copy of `doc` with one node replaced, removed or extended.
void for_each_mutation(const json::Value& doc, const std::function<void(const json::Value&)>& fn) {
  static const char* kReplacements[] = {"null", "true", "0", "-1", "1.5", "50", "51", "5000", "5001", "1700000000000",
                                        "\"\"", "\"x\"", "\"read_only\"", "\"invoke\"", "\"snapshot\"",
                                        "\"system.echo\"", "\"E_BAD_REQUEST\"", "\"01hzx9k3m4p7q8r9s0t1v2w3xy\"", "[]",
                                        "[\"invoke\"]", "[\"invoke\",\"invoke\"]", "{}"};
  // Every node is addressed by its path of member names / indices; mutate a copy at that path.
  std::function<void(const json::Value&, std::vector<std::pair<std::string, size_t>>&)> walk =
      [&](const json::Value& node, std::vector<std::pair<std::string, size_t>>& path) {
        const auto mutate = [&](const std::function<void(json::Value& target, json::Value* parent, json::Allocator&)>& edit) {
          json::Document copy;
          copy.CopyFrom(doc, copy.GetAllocator());
          json::Value* parent = nullptr;
          json::Value* target = &copy;
          for (const auto& [key, index] : path) {
            parent = target;
            target = key.empty() ? &(*target)[static_cast<rapidjson::SizeType>(index)] : &(*target)[key.c_str()];
          }
          edit(*target, parent, copy.GetAllocator());
          fn(copy);
        };
        for (const char* r : kReplacements) {
          mutate([&](json::Value& target, json::Value*, json::Allocator& alloc) {
            json::Document replacement;
            replacement.Parse(r);
            target.CopyFrom(replacement, alloc);
          });
        }
        if (!path.empty()) {  // remove this node from its parent
          mutate([&](json::Value&, json::Value* parent, json::Allocator&) {
            if (parent->IsObject()) parent->RemoveMember(path.back().first.c_str());
            else parent->Erase(parent->Begin() + path.back().second);
          });
        }
        if (node.IsObject()) {
          mutate([&](json::Value& target, json::Value*, json::Allocator& alloc) {
            target.AddMember("unexpected", json::Value(1), alloc);
          });
          for (const auto& m : node.GetObject()) {
            path.emplace_back(m.name.GetString(), 0);
            walk(m.value, path);
            path.pop_back();
          }
        } else if (node.IsArray()) {
          for (rapidjson::SizeType i = 0; i < node.Size(); ++i) {
            path.emplace_back("", i);
            walk(node[i], path);
            path.pop_back();
          }
        }
      };
  std::vector<std::pair<std::string, size_t>> path;
  walk(doc, path);
}

TEST_F(SchemaRegistryTest, AgreesWithStockValijsonOnMutatedDocuments) {
  const std::vector<std::pair<std::string, std::string>> seeds{
      {std::string(kManifest), manifest({kMetricsCap, kEchoCap})},
      {"cmd_ack@1.0.0", R"({"type":"cmd_ack","msg_id":"01HZXC0000000000000000DEV0","in_reply_to":"01HZXC0000000000000000SRV0",)"
                        R"("payload":{"ok":false,"error":{"code":"E_RATE_LIMITED","message":"m","suggested_fix":"f","retry_after_ms":5}}})"},
      {"cmd@1.0.0", R"({"type":"cmd","msg_id":"01HZXC0000000000000000SRV0","ts_ms":1763800000000,"deadline_ms":2000,)"
                    R"("payload":{"tool":"sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke","arguments":{"message":"ping"}}})"},
      {"system.metrics.subscribe.close@1.0.0", R"({"code":4503,"reason":"device_offline"})"},
      {"system.metrics.sample@1.0.0",
       R"({"ts_ms":1763800000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","uptime_s":5,"cpu":{"cores":4,"usage_pct":1,"per_core_pct":[1,2]},)"
       R"("mem":{"total_bytes":1,"available_bytes":1},"load":{"one":0,"five":0,"fifteen":0},)"
       R"("disk":[{"mount":"/","fs_type":"ext4","total_bytes":1,"available_bytes":1}]})"},
      {"status@1.0.0", R"({"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","state":"expired","since_ms":1763800000000,"expires_at_ms":1763800000000})"},
      {"tools.call.request@1.0.0", R"({"tool":"sysecho-01hzx9k3m4p7q8r9s0t1v2w3xy-echo-invoke","arguments":{"message":"x"}})"},
  };
  size_t compared = 0, refused = 0;
  for (const auto& seed : seeds) {
    const std::string& id = seed.first;  // a named variable: clang 14 cannot capture a structured binding
    const auto doc = json::parse_strict(seed.second).value();
    ASSERT_FALSE(reg().validate(id, doc).has_value()) << id;
    for_each_mutation(doc, [&](const json::Value& mutated) {
      const auto failure = reg().validate(id, mutated);
      EXPECT_EQ(!failure.has_value(), oracle_->valid(id, mutated)) << id << ": " << json::to_string(mutated);
      if (failure) {
        ++refused;
        EXPECT_FALSE(failure->message.empty());
      }
      ++compared;
    });
  }
  EXPECT_GT(refused, compared / 2);  // the mutations do exercise the failure paths
  std::printf("[ oracle   ] %zu mutated documents (%zu refused) compared with stock valijson\n", compared, refused);
}

// ------------------------------------------------------------------------------------------
// Informal timing (printed, never asserted: budgets live in bench/).

TEST_F(SchemaRegistryTest, PrintsManifestValidationTime) {
  std::vector<std::string> caps;
  for (int i = 0; i < 16; ++i) {
    caps.push_back(i % 2 ? capability("echo" + std::to_string(i), "system.echo", R"(["invoke"])")
                         : capability("metrics" + std::to_string(i), "system.metrics", R"(["snapshot","subscribe"])"));
  }
  const auto doc = json::parse_strict(manifest(caps)).value();
  ASSERT_FALSE(reg().validate(kManifest, doc).has_value());
  // Thread CPU time, so a loaded build machine does not inflate the figure.
  const auto cpu_us = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
  };
  constexpr int kRuns = 5000;
  double start = cpu_us();
  for (int i = 0; i < kRuns; ++i) {
    if (reg().validate(kManifest, doc)) ADD_FAILURE();
  }
  const double ours = (cpu_us() - start) / kRuns;
  start = cpu_us();
  for (int i = 0; i < kRuns / 10; ++i) {
    if (!oracle_->valid(kManifest, doc)) ADD_FAILURE();
  }
  const double stock = (cpu_us() - start) / (kRuns / 10);
  std::printf("[ timing   ] manifest@1.1.0, 16 capabilities: %.2f us CPU per validation (stock valijson walk: %.2f us)\n",
              ours, stock);
}

}  // namespace
}  // namespace fleetmcp
