// The built-in handlers against the real schema bundle: system.echo exactly as RFC-0005 §3–§4,
// system.metrics snapshot and subscribe results valid against their output schemas (from this
// host's /proc), the projected tool names, and the telemetry lease.
#include <gtest/gtest.h>

#include <set>

#include "common/base/json.h"
#include "common/registry/schema_registry.h"
#include "common/ids/ulid.h"
#include "device_client/commands/handler_catalogue.h"
#include "device_client/host/host_metrics.h"
#include "device_client/session/telemetry_cadence.h"
#include "device_client/commands/tool_table.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kNode = "01jd3x4m5n6p7q8r9s0t1v2w3x";

CapabilityConfig capability(const std::string& cap_id, const std::string& kind) {
  CapabilityConfig cap;
  cap.cap_id = cap_id;
  cap.kind = kind;
  cap.constraints = {10, 2, 2000};
  cap.entry = {"device.conf", 9, "capability." + cap_id, kind};
  return cap;
}

class BuiltinHandlers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"); }

  void SetUp() override {
    services_.node_id = kNode;
    services_.host_metrics = &host_;
    services_.telemetry = &cadence_;
    services_.telemetry_changed = [this] { ++cadence_changes_; };
    tools_ = std::make_unique<ToolTable>(ToolTable::build(
        {capability("echo", "system.echo"), capability("metrics", "system.metrics")}, schemas_->kinds(),
        HandlerCatalogue::builtin(), services_));
  }

  // Runs `tool` with `arguments` (checked against its input schema first) and checks the result
  // against its output schema, as the dispatcher does.
  json::Document call(const std::string& tool, const std::string& arguments) {
    const ToolEntry* entry = tools_->find(tool);
    EXPECT_NE(entry, nullptr) << tool;
    const json::Document args = json::parse_strict(arguments).value();
    const auto bad_args = schemas_->validate(entry->input_schema, args);
    EXPECT_FALSE(bad_args) << bad_args->path << ": " << bad_args->message;
    json::Document result = entry->handler->run({entry->verb, args}).value();
    const auto bad = schemas_->validate(entry->output_schema, result);
    EXPECT_FALSE(bad) << json::to_string(result) << "\n" << bad->path << ": " << bad->message;
    return result;
  }

  static std::set<std::string> keys(const json::Value& v) {
    std::set<std::string> out;
    for (const auto& m : v.GetObject()) out.insert(m.name.GetString());
    return out;
  }

  static std::shared_ptr<const SchemaRegistry> schemas_;
  HostMetrics host_;
  TelemetryCadence cadence_{5000};
  int cadence_changes_ = 0;
  NodeServices services_;
  std::unique_ptr<ToolTable> tools_;
};
std::shared_ptr<const SchemaRegistry> BuiltinHandlers::schemas_;

TEST_F(BuiltinHandlers, ProjectsRfcToolNames) {
  EXPECT_EQ(tools_->size(), 3u);
  EXPECT_NE(tools_->find("sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke"), nullptr);
  EXPECT_NE(tools_->find("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.snapshot"), nullptr);
  EXPECT_NE(tools_->find("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.subscribe"), nullptr);
  ASSERT_EQ(tools_->capabilities().size(), 2u);
  const Capability& echo = tools_->capabilities()[0];
  EXPECT_EQ(echo.schema_ref, "mcp://schemas/system.echo.invoke.input@1.0.0");  // RFC-0005 §9
  EXPECT_EQ(echo.verbs, std::vector<std::string>{"invoke"});
  EXPECT_EQ(tools_->capabilities()[1].schema_ref, "mcp://schemas/system.metrics@1.1.0");  // the kind contract
  EXPECT_EQ(tools_->capabilities()[1].verbs, (std::vector<std::string>{"snapshot", "subscribe"}));
}

TEST_F(BuiltinHandlers, UnknownKindOrSettingIsAConfigError) {
  try {
    ToolTable::build({capability("cam", "camera.video")}, schemas_->kinds(), HandlerCatalogue::builtin(), services_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.envelope().message,
              "device.conf:9: capability.cam: kind 'camera.video' is not in the kind registry (schemas/kinds.json)");
  }
  CapabilityConfig echo = capability("echo", "system.echo");
  echo.settings.push_back({"pins", "17"});
  EXPECT_THROW(ToolTable::build({echo}, schemas_->kinds(), HandlerCatalogue::builtin(), services_), Error);
}

TEST_F(BuiltinHandlers, EchoIsRfc0005) {
  const int64_t before = now_ms();
  const json::Document r = call("sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke", R"({"message":"ping"})");
  EXPECT_EQ(keys(r), (std::set<std::string>{"message", "received_at_ms", "node_id"}));
  EXPECT_EQ(json::get_string(r, "message"), "ping");
  EXPECT_EQ(json::get_string(r, "node_id"), kNode);
  EXPECT_GE(*json::get_int64(r, "received_at_ms"), before);
  EXPECT_LE(*json::get_int64(r, "received_at_ms"), now_ms());
}

TEST_F(BuiltinHandlers, EchoSleepHookIsOffWithoutTestHooks) {
  const json::Document r = call("sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke", R"({"message":"sleep:600000"})");
  EXPECT_EQ(json::get_string(r, "message"), "sleep:600000");  // returned at once, not after 10 minutes
}

// Echo runs inline on the MQTT thread (it cannot block); metrics reads /proc and statvfs's every
// mount (a hung network filesystem blocks), so it keeps the worker pool; so does the test hook's
// sleep, which exists to hold a call.
TEST_F(BuiltinHandlers, OnlyTheEchoSleepHookAndMetricsMayBlock) {
  auto may_block = [](const ToolTable& tools, const std::string& tool, const std::string& arguments) {
    const ToolEntry* entry = tools.find(tool);
    EXPECT_NE(entry, nullptr) << tool;
    const json::Document args = json::parse_strict(arguments).value();
    return entry->handler->may_block({entry->verb, args});
  };
  const std::string echo = "sysecho.01jd3x4m5n6p7q8r9s0t1v2w3x.echo.invoke";
  EXPECT_FALSE(may_block(*tools_, echo, R"({"message":"ping"})"));
  EXPECT_FALSE(may_block(*tools_, echo, R"({"message":"sleep:50"})"));  // no hooks: echoed, never slept
  EXPECT_TRUE(may_block(*tools_, "sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.snapshot", "{}"));
  EXPECT_TRUE(may_block(*tools_, "sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.subscribe", R"({"interval_ms":1000})"));

  NodeServices hooked = services_;
  hooked.test_hooks = true;
  const ToolTable with_hooks = ToolTable::build({capability("echo", "system.echo")}, schemas_->kinds(),
                                                HandlerCatalogue::builtin(), hooked);
  EXPECT_TRUE(may_block(with_hooks, echo, R"({"message":"sleep:50"})"));
  EXPECT_FALSE(may_block(with_hooks, echo, R"({"message":"ping"})"));
  EXPECT_FALSE(may_block(with_hooks, echo, R"({"message":"sleep:x"})"));
}

TEST_F(BuiltinHandlers, SnapshotOfThisHostIsAValidMetricsSample) {
  const json::Document r = call("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.snapshot", "{}");
  EXPECT_EQ(json::get_string(r, "node_id"), kNode);
  EXPECT_TRUE(r.HasMember("cpu"));
  EXPECT_TRUE(r.HasMember("mem"));
  EXPECT_TRUE(r.HasMember("load"));
  EXPECT_TRUE(r.HasMember("disk"));
  const auto& mem = r["mem"];
  EXPECT_EQ(*json::get_int64(mem, "used_bytes"),
            *json::get_int64(mem, "total_bytes") - *json::get_int64(mem, "available_bytes"));
  EXPECT_EQ(*json::get_int64(r["cpu"], "cores"), static_cast<int64_t>(r["cpu"]["per_core_pct"].Size()));
}

TEST_F(BuiltinHandlers, SnapshotHonoursInclude) {
  const json::Document r = call("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.snapshot", R"({"include":["mem","load"]})");
  EXPECT_EQ(keys(r), (std::set<std::string>{"ts_ms", "node_id", "uptime_s", "mem", "load"}));
  const json::Document none = call("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.snapshot", R"({"include":[]})");
  EXPECT_EQ(keys(none), (std::set<std::string>{"ts_ms", "node_id", "uptime_s"}));  // the schema's required
}

TEST_F(BuiltinHandlers, SubscribeGrantsALease) {
  const int64_t before = now_ms();
  const json::Document r =
      call("sys.01jd3x4m5n6p7q8r9s0t1v2w3x.metrics.subscribe", R"({"interval_ms":1000,"include":["cpu"]})");
  EXPECT_EQ(json::get_int64(r, "interval_ms"), 1000);
  const int64_t expires = *json::get_int64(r, "lease_expires_at_ms");
  EXPECT_GE(expires, before + kTelemetryLeaseMs);
  EXPECT_EQ(cadence_changes_, 1);
  EXPECT_EQ(cadence_.current(expires - 1).interval_ms, 1000);
  EXPECT_EQ(cadence_.current(expires - 1).parts, unsigned(kPartCpu));
  EXPECT_EQ(cadence_.current(expires).interval_ms, 5000);  // lease over: base cadence
  EXPECT_EQ(cadence_.current(expires).parts, unsigned(kPartAll));
}

}  // namespace
}  // namespace fleetmcp::device
