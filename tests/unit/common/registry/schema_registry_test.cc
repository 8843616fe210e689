// The schema registry over the real schemas/ directory: integrity (RFC 004 §5.3, fail closed),
// the documents copied from the seeds, the RFC wire examples, the RFC-0001 v1.3 clamps and the
// failure paths and messages a user sees. The fixture (tests/support/common/) checks every
// verdict against stock valijson.
#include "common/registry/schema_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/crypto/digest.h"
#include "common/protocol/manifest.h"
#include "tests/support/common/schema_registry_fixture.h"
#include "tests/support/test_files.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;
using testing::capability;
using testing::kEchoCap;
using testing::kManifest;
using testing::kMetricsCap;
using testing::kSchemasDir;
using testing::manifest;
using testing::SchemaRegistryTest;
using testing::TempSchemas;

// Loading `dir` must fail with an Error whose message names `file`.
void expect_load_fails_naming(const fs::path& dir, std::string_view file, std::string_view why = "") {
  try {
    SchemaRegistry::load(dir.string());
    ADD_FAILURE() << "load succeeded; expected a failure naming " << file;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal);
    EXPECT_NE(e.envelope().message.find(file), std::string::npos) << e.envelope().message;
    EXPECT_NE(e.envelope().message.find(why), std::string::npos) << e.envelope().message;
    EXPECT_FALSE(e.envelope().suggested_fix.empty());
  }
}

// ------------------------------------------------------------------------------------------

TEST_F(SchemaRegistryTest, IndexHashesMatchTheFilesAndListEveryDocument) {
  const auto index = json::parse_strict(read_file(kSchemasDir / "index.json").value()).value();
  ASSERT_TRUE(index.IsArray());
  std::set<std::string> listed;
  for (const auto& row : index.GetArray()) {
    const std::string file(*json::get_string(row, "file"));
    const std::string id(*json::get_string(row, "id"));
    listed.insert(file);
    EXPECT_EQ(sha256_hex(read_file(kSchemasDir / file).value()), *json::get_string(row, "sha256")) << file;
    if (id.starts_with("mcp://schemas/")) {
      const auto* doc = reg().find(id);
      ASSERT_NE(doc, nullptr) << id;
      EXPECT_EQ(doc->file, file);
      EXPECT_EQ(doc->bytes, read_file(kSchemasDir / file).value());  // served as-is
      EXPECT_EQ(doc->sha256_hex, *json::get_string(row, "sha256"));
      EXPECT_EQ(file, id.substr(14) + ".json");
    }
  }
  std::set<std::string> on_disk;
  for (const auto& e : fs::directory_iterator(kSchemasDir)) {
    if (e.path().extension() == ".json" && e.path().filename() != "index.json") on_disk.insert(e.path().filename());
  }
  EXPECT_EQ(listed, on_disk);
  EXPECT_EQ(reg().list().size() + 1, listed.size());  // every schema, plus kinds.json
}

TEST_F(SchemaRegistryTest, HasEveryDocumentTheContractsNeed) {
  for (const char* id : {"manifest@1.1.0", "error@1.0.0", "error@1.1.0", "system.metrics@1.0.0",
                         "system.metrics.snapshot.input@1.0.0", "system.metrics.subscribe.input@1.0.0",
                         "system.metrics.subscribe.output@1.0.0", "system.metrics.sample@1.0.0",
                         "system.metrics.subscribe.frame@1.0.0", "system.metrics.subscribe.close@1.0.0",
                         "system.echo@1.0.0", "system.echo.invoke.input@1.0.0", "system.echo.invoke.output@1.0.0",
                         "cmd@1.0.0", "cmd_ack@1.0.0", "status@1.0.0", "tools.call.request@1.0.0"}) {
    const auto* by_short = reg().find(id);
    ASSERT_NE(by_short, nullptr) << id;
    EXPECT_EQ(reg().find("mcp://schemas/" + std::string(id)), by_short);
    EXPECT_EQ(by_short->id, "mcp://schemas/" + std::string(id));
  }
  EXPECT_EQ(reg().find("manifest@1.0.0"), nullptr);  // D1: only 1.1.0 is published
  EXPECT_EQ(reg().find("mcp://schemas/nope@1.0.0"), nullptr);
  EXPECT_EQ(reg().find("kinds.json"), nullptr);
  const auto unknown = reg().validate("nope@1.0.0", json::parse_strict("{}").value());
  ASSERT_TRUE(unknown.has_value()) << "a document is valid against a schema the registry does not hold";
  EXPECT_EQ(unknown->message, "schema registry has no schema nope@1.0.0");
}

TEST_F(SchemaRegistryTest, KindRegistryMatchesTheManifestKindEnumAndTheKindContracts) {
  const auto m = json::parse_strict(reg().find(kManifestSchemaId)->bytes).value();
  const auto& kind_enum = m["$defs"]["Capability"]["properties"]["kind"]["enum"];
  std::set<std::string> schema_kinds, registry_kinds;
  for (const auto& k : kind_enum.GetArray()) schema_kinds.insert(k.GetString());
  for (const auto& k : reg().kinds().all()) registry_kinds.insert(k.kind);
  EXPECT_EQ(registry_kinds, schema_kinds);
  EXPECT_TRUE(registry_kinds.count("system.metrics") && registry_kinds.count("system.echo"));
  EXPECT_EQ(registry_kinds.size(), 15u);  // RFC-0001 v1.3, the Doc 05 catalogue and logs.audit (docs/catalogue.md)

  // RFC-0001 §3.2.
  ASSERT_NE(reg().kinds().by_kind("system.metrics"), nullptr);
  ASSERT_NE(reg().kinds().by_kind("system.echo"), nullptr);
  EXPECT_EQ(reg().kinds().by_kind("system.metrics")->kind_short, "sys");
  EXPECT_EQ(reg().kinds().by_kind("system.echo")->kind_short, "sysecho");

  for (const auto& k : reg().kinds().all()) {
    // The kind contract document lists the same verbs and schemas in x-verbs.
    const auto* contract = reg().find(k.schema_ref);
    ASSERT_NE(contract, nullptr) << k.schema_ref;
    const auto c = json::parse_strict(contract->bytes).value();
    ASSERT_TRUE(c.HasMember("x-verbs")) << k.schema_ref;
    EXPECT_EQ(c["x-verbs"].MemberCount(), k.verbs.size()) << k.kind;
    for (const auto& v : k.verbs) {
      ASSERT_TRUE(c["x-verbs"].HasMember(v.verb.c_str())) << k.kind << " " << v.verb;
      EXPECT_EQ(std::string(c["x-verbs"][v.verb.c_str()]["input"].GetString()), v.input_schema);
      EXPECT_EQ(std::string(c["x-verbs"][v.verb.c_str()]["output"].GetString()), v.output_schema);
      EXPECT_NE(reg().find(v.input_schema), nullptr);
      EXPECT_NE(reg().find(v.output_schema), nullptr);
      // Descriptions render from the template alone: every field is gone, no device string went in.
      const auto text = render_description(v);
      EXPECT_EQ(text.find('{'), std::string::npos) << text;
      EXPECT_EQ(text.find("device the device"), std::string::npos) << text;
    }
  }
  const auto* snapshot = reg().kinds().by_kind("system.metrics")->verb("snapshot");
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->output_schema, "mcp://schemas/system.metrics.sample@1.0.0");
  const auto* subscribe = reg().kinds().by_kind("system.metrics")->verb("subscribe");
  ASSERT_NE(subscribe, nullptr);
  EXPECT_EQ(subscribe->input_schema, "mcp://schemas/system.metrics.subscribe.input@1.1.0");
  EXPECT_EQ(subscribe->output_schema, "mcp://schemas/system.metrics.subscribe.output@1.0.0");
}

// Issue 37 item 5: what the model reads of the registry is about the tool, not the server. Every
// by_kind tool is named by an action other than the bare `invoke`, the names are distinct, each
// has a plain title, and no description names a scope or an HTTP endpoint.
TEST_F(SchemaRegistryTest, ToolWordsAreForTheModel) {
  std::set<std::string> names;
  for (const auto& k : reg().kinds().all()) {
    for (const auto& v : k.verbs) {
      const std::string name = k.kind + "." + v.action;
      EXPECT_NE(v.action, "invoke") << k.kind << " " << v.verb << ": name it by what it does";
      EXPECT_TRUE(names.insert(name).second) << name;
      EXPECT_NE(v.title, v.verb) << k.kind << " " << v.verb << " has no title";
      for (const std::string_view internal : {"tools:call:", "POST /", "GET /", "MUST"}) {
        EXPECT_EQ(v.description.find(internal), std::string::npos) << k.kind << " " << v.verb << " says " << internal;
      }
    }
  }
}

TEST_F(SchemaRegistryTest, ListIsNameAscendingVersionDescending) {
  const auto all = reg().list();
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const auto* a = all[i];
    const auto* b = all[i + 1];
    EXPECT_TRUE(a->name < b->name || (a->name == b->name && b->version < a->version)) << a->id << " " << b->id;
  }
  const auto errors = reg().versions("error");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0]->id, "mcp://schemas/error@1.3.0");
  EXPECT_EQ(errors[1]->id, "mcp://schemas/error@1.2.0");
  EXPECT_EQ(errors[2]->id, "mcp://schemas/error@1.1.0");
  EXPECT_EQ(errors[3]->id, "mcp://schemas/error@1.0.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=1.0.0"))->id, "mcp://schemas/error@1.3.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=1.0.0 <1.3.0"))->id, "mcp://schemas/error@1.2.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=1.0.0 <1.2.0"))->id, "mcp://schemas/error@1.1.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=1.0.0 <1.1.0"))->id, "mcp://schemas/error@1.0.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse("1.0.0"))->id, "mcp://schemas/error@1.0.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=2.0.0")), nullptr);
  EXPECT_EQ(reg().resolve("nope", *SemVerRange::parse(">=0.0.0")), nullptr);
  EXPECT_TRUE(reg().versions("nope").empty());
}

// ------------------------------------------------------------------------------------------
// RFC examples.

TEST_F(SchemaRegistryTest, Rfc0005WireTraceValidates) {
  // §11: the result, and the cmd_ack that carries it.
  expect_valid("system.echo.invoke.output@1.0.0",
               R"({"message":"ping","received_at_ms":1745236800012,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"})");
  expect_valid("cmd_ack@1.0.0",
               R"({"type":"cmd_ack","msg_id":"01HZXC0000000000000000DEV0","in_reply_to":"01HZXC0000000000000000SRV0",)"
               R"("payload":{"ok":true,"result":{"message":"ping","received_at_ms":1745236800012,)"
               R"("node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"}}})");
  expect_valid("system.echo.invoke.input@1.0.0", R"({"message":"ping"})");
  // docs/protocol.md §4 adds ts_ms and deadline_ms to the RFC-0002 cmd.
  expect_valid("cmd@1.0.0",
               R"({"type":"cmd","msg_id":"01HZXC0000000000000000SRV0","ts_ms":1763800000000,"deadline_ms":2000,)"
               R"("payload":{"tool":"sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke","arguments":{"message":"ping"}}})");
  expect_invalid("cmd@1.0.0",
                 R"({"type":"cmd","msg_id":"01HZXC0000000000000000SRV0","ts_ms":1763800000000,"deadline_ms":2000,)"
                 R"("payload":{"tool":"sysecho-01hzx9k3m4p7q8r9s0t1v2w3xy-echo-invoke","arguments":{}}})",
                 "/payload/tool", "does not match pattern ^[a-z0-9_]+(\\.[a-z0-9_]+){3}$");
  expect_invalid("cmd@1.0.0",
                 R"({"type":"cmd","msg_id":"01hzxc0000000000000000srv0","ts_ms":1763800000000,"deadline_ms":2000,)"
                 R"("payload":{"tool":"sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke","arguments":{}}})",
                 "/msg_id", "does not match pattern");
}

TEST_F(SchemaRegistryTest, Rfc0009FramesAndRequestsValidate) {
  // §5.1 wire example.
  expect_valid("system.metrics.subscribe.frame@1.0.0",
               R"({"ts_ms":1745300000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","cpu_pct":12.4,"mem_bytes":1234567890,)"
               R"("mem_total_bytes":8589934592,"disk_pct":31.2,"load_1m":0.42,"load_5m":0.39,"load_15m":0.35})");
  expect_invalid("system.metrics.subscribe.frame@1.0.0",
                 R"({"ts_ms":1745300000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","cpu_pct":112.4,"mem_bytes":1,)"
                 R"("mem_total_bytes":8589934592,"disk_pct":31.2,"load_1m":0.42,"load_5m":0.39,"load_15m":0.35})",
                 "/cpu_pct", "exceeds maximum 100");
  // §5.3 / §7 close frames; §9 fixtures.
  expect_valid("system.metrics.subscribe.close@1.0.0", R"({"code":1000,"reason":"normal"})");
  expect_valid("system.metrics.subscribe.close@1.0.0", R"({"code":4408,"reason":"idle_timeout"})");
  expect_valid("system.metrics.subscribe.close@1.0.0", R"({"code":4413,"reason":"backpressure"})");
  expect_valid("system.metrics.subscribe.close@1.0.0", R"({"code":4429,"reason":"rate_limited"})");
  expect_valid("system.metrics.subscribe.close@1.0.0", R"({"code":4503,"reason":"device_offline"})");
  expect_invalid("system.metrics.subscribe.close@1.0.0", R"({"code":1001,"reason":"normal"})", "/code",
                 "is not one of the allowed values");
  expect_invalid("system.metrics.subscribe.close@1.0.0", R"({"code":4408,"reason":"normal"})", "/reason",
                 "must be \"idle_timeout\"");
  expect_invalid("system.metrics.subscribe.close@1.0.0", R"({"code":1000,"reason":"normal","retry":1})", "",
                 "has a property the schema does not allow (allowed: ");
  // §3 request body, dotted or dashed (D9).
  expect_valid("tools.call.request@1.0.0",
               R"({"tool":"sys.01hzx9k3m4p7q8r9s0t1v2w3xy.metrics.subscribe","arguments":{"interval_ms":5000}})");
  expect_valid("tools.call.request@1.0.0", R"({"tool":"sys-01hzx9k3m4p7q8r9s0t1v2w3xy-metrics-subscribe"})");
  expect_invalid("tools.call.request@1.0.0", R"({"tool":"sys.01hzx9k3m4p7q8r9s0t1v2w3xy-metrics.subscribe"})",
                 "/tool", "does not match pattern");
  expect_invalid("tools.call.request@1.0.0", R"({"tool":"sys.a.b.c","arguments":[]})", "/arguments",
                 "must be of type object");
  // D3: the subscribe input accepts the RFC-0009 §3 arguments and requires interval_ms.
  expect_valid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":5000})");
  expect_valid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":1000,"include":["cpu","disk"]})");
  expect_invalid("system.metrics.subscribe.input@1.0.0", R"({})", "", "is missing required property \"interval_ms\"");
  expect_invalid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":999})", "/interval_ms",
                 "is below minimum 1000");
  expect_invalid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":60001})", "/interval_ms",
                 "exceeds maximum 60000");
  expect_invalid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":5000,"include":["gpu"]})", "/include/0",
                 "is not one of the allowed values");
  expect_invalid("system.metrics.subscribe.input@1.0.0", R"({"interval_ms":5000,"include":["cpu","cpu"]})",
                 "/include", "uniqueItems");
  expect_valid("system.metrics.subscribe.output@1.0.0", R"({"interval_ms":5000,"lease_expires_at_ms":1763800060000})");
  expect_valid("system.metrics.snapshot.input@1.0.0", R"({})");
}

TEST_F(SchemaRegistryTest, MetricsSampleAndStatusValidate) {
  expect_valid("system.metrics.sample@1.0.0",
               R"({"ts_ms":1763800000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","uptime_s":12345,)"
               R"("cpu":{"cores":4,"usage_pct":12.5,"per_core_pct":[10,15,12.5,12.5]},)"
               R"("mem":{"total_bytes":8000000000,"available_bytes":6000000000,"used_bytes":2000000000},)"
               R"("load":{"one":0.5,"five":0.4,"fifteen":0.3},)"
               R"("disk":[{"mount":"/","fs_type":"ext4","total_bytes":64000000000,"available_bytes":32000000000}]})");
  expect_invalid("system.metrics.sample@1.0.0",
                 R"({"ts_ms":1763800000000,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","uptime_s":1,)"
                 R"("disk":[{"mount":"/","fs_type":"ext4","total_bytes":-1,"available_bytes":0}]})",
                 "/disk/0/total_bytes", "is below minimum 0");
  expect_valid("status@1.0.0",
               R"({"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","state":"online","since_ms":1763800000000,)"
               R"("manifest_etag":")" + std::string(64, 'f') + R"(","expires_at_ms":1763803600000})");
  expect_valid("status@1.0.0", R"({"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","state":"offline","since_ms":1763800000000})");
  expect_invalid("status@1.0.0", R"({"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy","state":"gone","since_ms":1763800000000})",
                 "/state", "is not one of the allowed values: \"online\", \"offline\", \"expired\", \"revoked\"");
}

TEST_F(SchemaRegistryTest, ErrorEnvelopeVersions) {
  // D4: E_BAD_REQUEST only in error@1.1.0; error@1.0.0 stays the RFC-0001 §4 document.
  const std::string bad_request = R"({"code":"E_BAD_REQUEST","message":"Accept must be text/event-stream",)"
                                  R"("suggested_fix":"retry with Accept: text/event-stream"})";
  expect_valid("error@1.1.0", bad_request);
  expect_invalid("error@1.0.0", bad_request, "/code", "is not one of the allowed values");
  const std::string limited = R"({"code":"E_RATE_LIMITED","message":"busy","suggested_fix":"retry after 1500ms",)"
                              R"("retry_after_ms":1500,"correlation_id":"01HZXC0000000000000000SRV0"})";
  expect_valid("error@1.0.0", limited);
  expect_valid("error@1.1.0", limited);
  expect_invalid("error@1.1.0", R"({"code":"E_INTERNAL","message":"caf\u00e9","suggested_fix":"x"})", "/message",
                 "does not match pattern ^[\\x20-\\x7E]*$");
  expect_invalid("error@1.1.0", R"({"code":"E_INTERNAL","message":"x"})", "",
                 "is missing required property \"suggested_fix\"");
  // Whatever the code and text, the project's own envelope validates against error@1.1.0.
  for (auto code : {ErrorCode::kBadRequest, ErrorCode::kInternal, ErrorCode::kRateLimited}) {
    ErrorEnvelope env(code, "bad \x01 bytes \xc3\xa9 " + std::string(600, 'x'), "fix");
    env.retry_after_ms = 10;
    expect_valid("error@1.1.0", env.to_json());
  }
  // error@1.2.0: the details the plugin adds to a device's refusal (closed sets only), refused by
  // error@1.1.0, whose envelope has additionalProperties false.
  ErrorEnvelope refused(ErrorCode::kBadRequest, "refused", "fix");
  refused.reason = "failed_precondition";
  refused.dependent_services = {"NetworkManager.service", "user@1000.service"};
  expect_valid("error@1.2.0", refused.to_json());
  expect_invalid("error@1.1.0", refused.to_json(), "", "");
  expect_valid("error@1.2.0", limited);
  expect_invalid("error@1.2.0", R"({"code":"E_BAD_REQUEST","message":"m","suggested_fix":"f","details":{"reason":"because"}})",
                 "/details/reason", "is not one of the allowed values");
  expect_invalid("error@1.2.0", R"({"code":"E_BAD_REQUEST","message":"m","suggested_fix":"f",)"
                                R"("details":{"reason":"failed_precondition","dependent_services":["a b.service"]}})",
                 "/details/dependent_services/0", "does not match pattern");
  expect_invalid("error@1.2.0", R"({"code":"E_BAD_REQUEST","message":"m","suggested_fix":"f",)"
                                R"("details":{"reason":"not_found","note":"free text"}})",
                 "/details", "");
  // error@1.3.0 (D41): E_INVALID_ARGUMENTS, what MCP callers get for bad tool arguments; the
  // versions before it refuse the code, so RFC-0009 and the nodes keep E_MANIFEST_INVALID.
  ErrorEnvelope bad_arguments(ErrorCode::kInvalidArguments, "invalid arguments at /message: not a string", "fix");
  bad_arguments.reason = "invalid_argument";
  expect_valid("error@1.3.0", bad_arguments.to_json());
  expect_invalid("error@1.2.0", bad_arguments.to_json(), "/code", "is not one of the allowed values");
  expect_valid("error@1.3.0", refused.to_json());
  expect_valid("error@1.3.0", limited);
  // cmd_ack carries the same envelope inline.
  const std::string ack = R"({"type":"cmd_ack","msg_id":"01HZXC0000000000000000DEV0","in_reply_to":"01HZXC0000000000000000SRV0","payload":)";
  expect_valid("cmd_ack@1.0.0", ack + R"({"ok":false,"error":)" + bad_request + "}}");
  expect_invalid("cmd_ack@1.0.0", ack + R"({"ok":false,"error":{"code":"E_NOPE","message":"m","suggested_fix":"f"}}})",
                 "/payload/error/code", "is not one of the allowed values");
  expect_invalid("cmd_ack@1.0.0", ack + R"({"ok":false}})", "/payload", "is missing required property \"error\"");
  expect_invalid("cmd_ack@1.0.0", ack + R"({"ok":true,"result":{},"error":)" + bad_request + "}}", "/payload/error",
                 "is not allowed here");
  expect_invalid("cmd_ack@1.0.0", ack + R"({"ok":"yes","result":{}}})", "/payload/ok", "must be of type boolean");
}

// ------------------------------------------------------------------------------------------
// manifest@1.1.0 and its per-kind clamps (RFC-0001 v1.3 §2, G3).

TEST_F(SchemaRegistryTest, ValidManifestsPass) {
  expect_valid(kManifest, manifest({kMetricsCap, kEchoCap}));
  // The clamps are per kind: system.metrics may go past the echo ceilings.
  expect_valid(kManifest, manifest({capability("metrics", "system.metrics", R"(["snapshot"])", "read_only",
                                               R"({"rate_limit_rps":1000,"deadline_ms_default":30000})")}));
  expect_valid(kManifest, manifest({capability("echo", "system.echo", R"(["invoke"])", "read_only",
                                               R"({"rate_limit_rps":50,"deadline_ms_default":5000})")}));
  expect_valid(kManifest, manifest({capability("echo", "system.echo", R"(["invoke"])", "read_only",
                                               R"({"rate_limit_rps":0.5})")}));
}

TEST_F(SchemaRegistryTest, EchoClampViolationsNameTheField) {
  expect_invalid(kManifest,
                 manifest({kMetricsCap, capability("echo", "system.echo", R"(["invoke"])", "read_only",
                                                   R"({"rate_limit_rps":10,"deadline_ms_default":5001})")}),
                 "/capabilities/1/constraints/deadline_ms_default", "exceeds maximum 5000");
  expect_invalid(kManifest,
                 manifest({kMetricsCap, capability("echo", "system.echo", R"(["invoke"])", "read_only",
                                                   R"({"rate_limit_rps":50.5})")}),
                 "/capabilities/1/constraints/rate_limit_rps", "exceeds maximum 50");
  expect_invalid(kManifest, manifest({kMetricsCap, capability("echo", "system.echo", R"(["invoke"])", "reversible")}),
                 "/capabilities/1/safety_class", "must be \"read_only\"");
  expect_invalid(kManifest, manifest({kMetricsCap, capability("echo", "system.echo", R"(["invoke","get"])")}),
                 "/capabilities/1/verbs/1", "is not one of the allowed values: \"invoke\"");
}

TEST_F(SchemaRegistryTest, MetricsClampViolationsNameTheField) {
  expect_invalid(kManifest,
                 manifest({capability("metrics", "system.metrics", R"(["snapshot"])", "physical_actuation"), kEchoCap}),
                 "/capabilities/0/safety_class", "must be \"read_only\"");
  expect_invalid(kManifest, manifest({capability("metrics", "system.metrics", R"(["snapshot","set"])"), kEchoCap}),
                 "/capabilities/0/verbs/1", "is not one of the allowed values: \"snapshot\", \"subscribe\"");
}

TEST_F(SchemaRegistryTest, BaseConstraintViolationsNameTheField) {
  // One broken capability per row: the manifest is refused at `path`, with a message containing `why`.
  struct Violation {
    std::string capability;
    const char* path;
    const char* why;
  };
  const Violation violations[] = {
      {capability("Echo", "system.echo", R"(["invoke"])"), "/capabilities/0/cap_id",
       "does not match pattern ^[a-z][a-z0-9_]{0,17}$"},
      {capability("abcdefghijklmnopqrs", "system.echo", R"(["invoke"])"), "/capabilities/0/cap_id",
       "does not match pattern"},
      {capability("gpio", "gpio.pin", R"(["set"])", "physical_actuation"), "/capabilities/0/kind",
       "is not one of the allowed values: \"system.metrics\", \"system.echo\""},
      {capability("echo", "system.echo", R"(["invoke"])", "read_only", R"({"rate_limit_rps":0})"),
       "/capabilities/0/constraints/rate_limit_rps", "is not greater than exclusive minimum 0"},
      {capability("echo", "system.echo", R"(["invoke"])", "read_only", R"({"rate_limit_rps":1,"deadline_ms_default":49})"),
       "/capabilities/0/constraints/deadline_ms_default", "is below minimum 50"},
      {capability("echo", "system.echo", R"(["invoke"])", "read_only",
                  R"({"rate_limit_rps":1,"deadline_ms_default":2000.5})"),
       "/capabilities/0/constraints/deadline_ms_default", "must be of type integer"},
      {capability("echo", "system.echo", R"(["invoke"])", "read_only", R"({"max_concurrency":2})"),
       "/capabilities/0/constraints", "is missing required property \"rate_limit_rps\""},
      {capability("echo", "system.echo", R"(["invoke"])", "read_only", R"({"rate_limit_rps":1})",
                  "mcp://schemas/system.echo@1"),
       "/capabilities/0/schema_ref", "does not match pattern"},
      // RFC-0001 §2's closed enums and uniqueness (R1-39): verbs, safety_class.
      {capability("echo", "system.echo", R"(["invoke","invoke"])"), "/capabilities/0/verbs", "uniqueItems"},
      {capability("echo", "system.echo", R"(["run"])"), "/capabilities/0/verbs/0", "is not one of the allowed values"},
      {capability("echo", "system.echo", R"([])"), "/capabilities/0/verbs", "has fewer items than minItems 1"},
      // decision #4 keeps "streaming" off the safety axis (the kind's clamp answers first).
      {capability("echo", "system.echo", R"(["invoke"])", "streaming"), "/capabilities/0/safety_class",
       "must be \"read_only\""},
  };
  for (const Violation& v : violations) {
    SCOPED_TRACE(v.capability);
    expect_invalid(kManifest, manifest({v.capability}), v.path, v.why);
  }
  std::string old_version = manifest({kEchoCap});
  old_version.replace(old_version.find("\"1.1.0\""), 7, "\"1.0.0\"");
  expect_invalid(kManifest, old_version, "/manifest_version", "must be \"1.1.0\"");
  expect_invalid(kManifest, manifest({kEchoCap}, R"(,"ignore_previous_instructions":true)"), "",
                 "has a property the schema does not allow (allowed: ");
  expect_invalid(kManifest, manifest({}), "/capabilities", "has fewer items than minItems 1");
  expect_invalid(kManifest, manifest({kEchoCap}).replace(manifest({kEchoCap}).find("Ed25519"), 7, "RS256"),
                 "/node_attestation/alg", "is not one of the allowed values: \"Ed25519\"");
  expect_invalid(kManifest, "[]", "", "must be of type object");
  // The fingerprint's algo and sources (closed enums, 1.., unique) and the times' minimum.
  const std::string base = manifest({kEchoCap});
  const auto with = [&](std::string_view from, std::string_view to) {
    std::string text = base;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  expect_invalid(kManifest, with("blake3-256", "sha-256"), "/hw_fingerprint/algo", "is not one of the allowed values");
  expect_invalid(kManifest, with(R"(["machine_id","mac_primary"])", "[]"), "/hw_fingerprint/sources",
                 "has fewer items than minItems 1");
  expect_invalid(kManifest, with(R"(["machine_id","mac_primary"])", R"(["machine_id","machine_id"])"),
                 "/hw_fingerprint/sources", "uniqueItems");
  expect_invalid(kManifest, with(R"(["machine_id","mac_primary"])", R"(["hostname"])"), "/hw_fingerprint/sources/0",
                 "is not one of the allowed values");
  expect_invalid(kManifest, with("1763800000000", "1600000000000"), "/issued_at_ms", "is below minimum 1700000000000");
  // The unknown key is not echoed back: messages never carry the sender's strings.
  const auto f = check(kManifest, manifest({kEchoCap}, R"(,"ignore_previous_instructions":true)"));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->message.find("ignore_previous"), std::string::npos);
  EXPECT_EQ(f->path.find("ignore_previous"), std::string::npos);
}

TEST_F(SchemaRegistryTest, EchoArgumentsAreClamped) {
  expect_valid("system.echo.invoke.input@1.0.0", R"({"message":""})");
  expect_valid("system.echo.invoke.input@1.0.0", R"({"message":")" + std::string(1024, '~') + R"("})");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({"message":")" + std::string(1025, 'x') + R"("})", "/message",
                 "is longer than maxLength 1024");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({"message":"h\u00e9llo"})", "/message",
                 "does not match pattern ^[\\x20-\\x7E]*$");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({"message":"tab\there"})", "/message", "does not match pattern");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({"message":42})", "/message", "must be of type string");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({})", "", "is missing required property \"message\"");
  expect_invalid("system.echo.invoke.input@1.0.0", R"({"message":"a","extra":1})", "",
                 "has a property the schema does not allow (allowed: ");
  expect_invalid("system.echo.invoke.output@1.0.0",
                 R"({"message":"ping","received_at_ms":1699999999999,"node_id":"01hzx9k3m4p7q8r9s0t1v2w3xy"})",
                 "/received_at_ms", "is below minimum 1700000000000");
}

// ------------------------------------------------------------------------------------------
// Integrity: RFC 004 §5.3 fail-closed loading.

// One edit of a published file per row: the registry refuses to load, naming the file and why.
struct Tampering {
  const char* file;
  const char* from;
  const char* to;
  bool reindexed;  // the index's hash was updated too, so only the content check can catch it
  const char* why;
};

const Tampering kTamperings[] = {
    {"system.echo.invoke.input@1.0.0.json", "\"maxLength\": 1024", "\"maxLength\": 4096", false,
     "does not match index.json"},
    {"kinds.json", "\"sysecho\"", "\"sysxcho\"", false, "does not match index.json"},
    {"status@1.0.0.json", "status@1.0.0", "status@1.0.1", true, "$id"},
    {"index.json", "\"file\": \"status@1.0.0.json\"", "\"file\": \"../status@1.0.0.json\"", false, "outside"},
    {"kinds.json", "system.echo.invoke.output@1.1.0", "system.echo.invoke.output@9.0.0", true,
     "system.echo.invoke.output@9.0.0"},
};

TEST(SchemaRegistryIntegrity, EachTamperingIsRefusedNamingTheFile) {
  for (const Tampering& t : kTamperings) {
    SCOPED_TRACE(t.to);
    TempSchemas tmp;
    tmp.edit(t.file, t.from, t.to);
    if (t.reindexed) tmp.reindex(t.file);
    expect_load_fails_naming(tmp.dir(), t.file, t.why);
  }
}

TEST(SchemaRegistryIntegrity, MissingFileIsRefusedNamingIt) {
  TempSchemas tmp;
  fs::remove(tmp.dir() / "error@1.1.0.json");
  expect_load_fails_naming(tmp.dir(), "error@1.1.0.json", "missing");
}

TEST(SchemaRegistryIntegrity, MissingIndexIsRefused) {
  TempSchemas tmp;
  fs::remove(tmp.dir() / "index.json");
  expect_load_fails_naming(tmp.dir(), "index.json", "missing");
}

TEST(SchemaRegistryIntegrity, SchemaValijsonCannotCompileIsRefused) {
  TempSchemas tmp;
  testing::write_test_file(tmp.dir() / "status@1.0.0.json",
       R"({"$id": "mcp://schemas/status@1.0.0", "type": "object", "properties": {"a": {"pattern": "("}}})");
  tmp.reindex("status@1.0.0.json");
  expect_load_fails_naming(tmp.dir(), "status@1.0.0.json", "compile");
  testing::write_test_file(tmp.dir() / "status@1.0.0.json", R"({"$id": "mcp://schemas/status@1.0.0", "$ref": "mcp://elsewhere/x"})");
  tmp.reindex("status@1.0.0.json");
  expect_load_fails_naming(tmp.dir(), "status@1.0.0.json", "compile");
  testing::write_test_file(tmp.dir() / "status@1.0.0.json", R"({"$id": "mcp://schemas/status@1.0.0", "type": "integer", "x": 1, "x": 2})");
  tmp.reindex("status@1.0.0.json");
  expect_load_fails_naming(tmp.dir(), "status@1.0.0.json", "duplicate object key");  // strict parser
}

TEST(SchemaRegistryIntegrity, UntouchedCopyLoads) {
  TempSchemas tmp;
  const auto reg = SchemaRegistry::load(tmp.dir().string());
  EXPECT_NE(reg->find("manifest@1.1.0"), nullptr);
}

TEST(SchemaRegistryDefaults, DefaultDirHonoursTheEnvironment) {
  const char* old = std::getenv("FLEETMCP_SCHEMAS");
  const std::string saved = old ? old : "";
  setenv("FLEETMCP_SCHEMAS", "/somewhere/else", 1);
  EXPECT_EQ(SchemaRegistry::default_dir(), "/somewhere/else");
  unsetenv("FLEETMCP_SCHEMAS");
  const auto dir = SchemaRegistry::default_dir();
  EXPECT_TRUE(fs::exists(fs::path(dir) / "index.json")) << dir;  // installed copy or the source tree
  if (old) setenv("FLEETMCP_SCHEMAS", saved.c_str(), 1);
}


// validate() is called from the broker thread and the HTTP front's threads at once.
TEST_F(SchemaRegistryTest, ValidatesConcurrently) {
  const auto good = json::parse_strict(manifest({kMetricsCap, kEchoCap})).value();
  const auto bad = json::parse_strict(manifest({kMetricsCap, capability("Echo", "system.echo", R"(["invoke"])")})).value();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if (reg().validate(kManifest, good).has_value()) ++wrong;
        const auto f = reg().validate(kManifest, bad);
        if (!f || f->path != "/capabilities/1/cap_id" || f->message.find("does not match pattern") != 0) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace fleetmcp
