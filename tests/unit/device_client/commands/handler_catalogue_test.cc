// The Doc 05 catalogue through the device's ToolTable, as a --simulate node builds it: every tool
// answers with a result valid against its output schema, the allow-lists and safety settings hold,
// the manifest it produces validates against manifest@1.4.0 with the kinds' clamps and labels, and each real
// backend, on this machine without the hardware, answers with a failed_precondition envelope.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/protocol/manifest.h"
#include "common/registry/schema_registry.h"
#include "device_client/backends/camera_source.h"
#include "device_client/peripherals/gpio_handler.h"
#include "device_client/backends/gpio_line.h"
#include "device_client/backends/i2c_bus.h"
#include "device_client/backends/log_source.h"
#include "device_client/backends/power_control.h"
#include "device_client/backends/pwm_channel.h"
#include "device_client/backends/service_control.h"
#include "device_client/handlers/service_handler.h"
#include "device_client/handlers/system_handlers.h"
#include "device_client/simulated/simulated_catalogue.h"
#include "device_client/node/cli_options.h"
#include "device_client/commands/command_audit.h"
#include "device_client/commands/handler_catalogue.h"
#include "device_client/host/host_metrics.h"
#include "device_client/session/timer_queue.h"
#include "device_client/commands/tool_table.h"
#include "tests/support/device_client/recording_line.h"
#include "tests/support/device_client/unit_with_dependents.h"

namespace fleetmcp::device {
namespace {

using fleetmcp::device::testing::RecordingLine;
using fleetmcp::device::testing::UnitWithDependents;

namespace fs = std::filesystem;
constexpr const char* kNode = "01jd3x4m5n6p7q8r9s0t1v2w3x";

CapabilityConfig capability(const std::string& cap_id, const std::string& kind,
                            std::vector<CapabilitySetting> settings = {}) {
  CapabilityConfig cap;
  cap.cap_id = cap_id;
  cap.kind = kind;
  cap.constraints = {10, 1, 2000};
  cap.settings = std::move(settings);
  cap.entry = {"device.conf", 12, "capability." + cap_id, kind};
  return cap;
}

// The simulated catalogue a --simulate node gets (docs/catalogue.md, "Simulated fleet").
std::vector<CapabilityConfig> simulated_catalogue(const std::string& photo_dir) {
  return {capability("info", "system.info"),
          capability("health", "system.health"),
          capability("net", "network.status"),
          capability("procs", "process.table"),
          capability("nginx", "service.unit", {{"unit", "nginx.service"}}),
          capability("app", "logs.journal", {{"units", "fleetmcp-device.service"}}),
          capability("audit", "logs.audit"),
          capability("gpio17", "gpio.pin", {{"line", "17"}}),
          capability("button", "gpio.pin", {{"line", "27"}, {"writable", "false"}}),
          capability("pwm0", "gpio.pwm", {{"pin", "18"}}),
          capability("i2c1", "i2c.bus", {{"bus", "1"}, {"addresses", "0x48,0x76,0x77"}, {"readable_registers", "0x10"}, {"sim_devices", "0x48,0x76"}}),
          capability("camera0", "camera.still", {{"dir", photo_dir}, {"max_files", "2"}}),
          capability("reboot", "system.power", {{"action", "reboot"}}),
          capability("server", "manage.server", {{"update_unit", "fleetmcp-update.service"}})};
}

class CatalogueHandlers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { schemas_ = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas"); }

  void SetUp() override {
    photo_dir_ = fs::temp_directory_path() / ("fleetmcp-catalogue-test-" + std::to_string(getpid()));
    fs::remove_all(photo_dir_);
    services_.node_id = kNode;
    services_.host_metrics = &host_;
    services_.timers = &timers_;
    services_.audit = &audit_;
    services_.simulated = true;
    services_.started_at_ms = 1763800000000;
    tools_ = std::make_unique<ToolTable>(
        ToolTable::build(simulated_catalogue(photo_dir_), schemas_->kinds(), HandlerCatalogue::builtin(), services_));
  }
  void TearDown() override {
    tools_.reset();
    fs::remove_all(photo_dir_);
  }

  std::string tool(const std::string& prefix, const std::string& cap, const std::string& verb) {
    return prefix + "." + kNode + "." + cap + "." + verb;
  }

  // As the dispatcher does: arguments checked against the input schema, result against the output.
  Result<json::Document> run(const std::string& name, const std::string& arguments) {
    const ToolEntry* entry = tools_->find(name);
    EXPECT_NE(entry, nullptr) << name;
    if (entry == nullptr) return json::Document();
    const json::Document args = json::parse_strict(arguments).value();
    const auto bad_args = schemas_->validate(entry->input_schema, args);
    EXPECT_FALSE(bad_args) << name << " " << arguments << ": " << bad_args->path << ": " << bad_args->message;
    auto result = entry->handler->run({entry->verb, args});
    if (!result) return result;
    const auto bad = schemas_->validate(entry->output_schema, *result);
    EXPECT_FALSE(bad) << name << ": " << json::to_string(*result) << "\n" << bad->path << ": " << bad->message;
    return result;
  }

  json::Document call(const std::string& name, const std::string& arguments = "{}") {
    auto result = run(name, arguments);
    if (result) return std::move(result).value();
    ADD_FAILURE() << name << " " << arguments << " refused: " << result.error().message;
    return json::Document();
  }

  ErrorEnvelope refusal(const std::string& name, const std::string& arguments) {
    const auto result = run(name, arguments);
    if (!result) return result.error();
    ADD_FAILURE() << name << " " << arguments << " did not fail";
    return {};
  }

  static std::shared_ptr<const SchemaRegistry> schemas_;
  fs::path photo_dir_;
  HostMetrics host_;
  TimerQueue timers_;
  CommandAudit audit_;
  NodeServices services_;
  std::unique_ptr<ToolTable> tools_;
};
std::shared_ptr<const SchemaRegistry> CatalogueHandlers::schemas_;

TEST_F(CatalogueHandlers, EveryProjectedNameFitsAndTheManifestValidates) {
  EXPECT_EQ(tools_->size(), 23u);
  ManifestContent m;
  m.node_id = kNode;
  m.hw_sources = {{"machine_id", "x"}};
  m.kid = std::string(64, 'a');
  m.issued_at_ms = 1763800000000;
  m.expires_at_ms = m.issued_at_ms + 3'600'000;
  m.capabilities = tools_->capabilities();
  json::Document doc = build_manifest(m);
  auto& att = doc["node_attestation"];  // signing is manifest_test's business; fill the shapes
  att["payload_hash"] = json::string_value(std::string(64, '0'), doc.GetAllocator());
  att["sig"] = json::string_value(std::string(86, 'A'), doc.GetAllocator());
  const auto bad = schemas_->validate(kManifestSchemaId, doc);
  EXPECT_FALSE(bad) << bad->path << ": " << bad->message;

  // The worst case the registry allows: the longest kind_short, an 18-character cap_id, the
  // longest verb of that kind. RFC-0001 §3.1's budget is 64.
  for (const auto& kind : schemas_->kinds().all()) {
    for (const auto& verb : kind.verbs) {
      const auto name = make_tool_name(kind.kind_short, kNode, "abcdefghijklmnopqr", verb.verb);
      ASSERT_TRUE(name) << kind.kind << " " << verb.verb;
      EXPECT_LE(name->dotted().size(), 64u);
    }
  }
}

// Each capability's manifest label says what it is on the device, from its own settings (issue 37
// item 4): the pin and its direction, the unit, the power action; kinds with one target have none.
TEST_F(CatalogueHandlers, EachCapabilitySaysWhatItIsOnTheDevice) {
  std::map<std::string, std::string> labels;
  for (const Capability& cap : tools_->capabilities()) labels[cap.cap_id] = cap.label;
  EXPECT_EQ(labels, (std::map<std::string, std::string>{{"info", ""},
                                                        {"health", ""},
                                                        {"net", ""},
                                                        {"procs", ""},
                                                        {"nginx", "nginx.service"},
                                                        {"app", "fleetmcp-device.service"},
                                                        {"audit", ""},
                                                        {"gpio17", "BCM 17, output"},
                                                        {"button", "BCM 27, input"},
                                                        {"pwm0", "BCM 18, pwmchip0 channel 0"},
                                                        {"i2c1", "bus 1, 0x48 0x76 0x77"},
                                                        {"camera0", "camera 0"},
                                                        {"reboot", "reboot"},
                                                        {"server", ""}}));
}

TEST_F(CatalogueHandlers, KindDefaultsGiveHardwareRatesUnlessTheLineSaysOtherwise) {
  const auto& caps = tools_->capabilities();
  auto find = [&](const std::string& id) {
    return *std::find_if(caps.begin(), caps.end(), [&](const Capability& c) { return c.cap_id == id; });
  };
  EXPECT_DOUBLE_EQ(find("reboot").constraints.rate_limit_rps, 0.05);
  EXPECT_DOUBLE_EQ(find("camera0").constraints.rate_limit_rps, 0.5);
  EXPECT_EQ(find("camera0").constraints.deadline_ms_default, 15000);
  EXPECT_EQ(find("gpio17").safety_class, SafetyClass::kPhysicalActuation);
  EXPECT_EQ(find("nginx").safety_class, SafetyClass::kReversible);
  EXPECT_EQ(find("button").verbs, std::vector<std::string>{"get"});  // writable=false
  CapabilityConfig fast = capability("gpio4", "gpio.pin", {{"line", "4"}});
  fast.constraints.rate_limit_rps = 3;
  fast.rate_given = true;
  EXPECT_DOUBLE_EQ(HandlerCatalogue::builtin().constraints_for(fast).rate_limit_rps, 3);
}

TEST_F(CatalogueHandlers, ReadOnlyToolsAnswerWithValidDocuments) {
  call(tool("sysinfo", "info", "get"));
  const json::Document h = call(tool("health", "health", "snapshot"));
  EXPECT_GT(h["memory_total_bytes"].GetUint64(), 0u);
  // Doc 05 addendum §4.1, §4.2: this host's rates (valid against output@1.1.0, checked by call()).
  ASSERT_TRUE(h.HasMember("network") && h.HasMember("disk_io")) << json::to_string(h);
  EXPECT_TRUE(h["network"]["interfaces"].HasMember("lo"));
  EXPECT_GE(h["network"]["interval_ms"].GetInt64(), 1000);
  EXPECT_TRUE(h["disk_io"]["devices"].IsObject());
  call(tool("net", "net", "get"));
  EXPECT_GE(call(tool("proc", "procs", "snapshot"), R"({"limit":5})")["returned_count"].GetInt(), 1);
  const json::Document self = call(tool("proc", "procs", "get"), "{\"pid\":" + std::to_string(getpid()) + "}");
  EXPECT_EQ(self["pid"].GetInt(), getpid());
  EXPECT_EQ(refusal(tool("proc", "procs", "get"), R"({"pid":4194304})").message, "not_found: no process 4194304");
  const json::Document logs = call(tool("logs", "app", "get"), R"({"level":"err","limit":5})");
  EXPECT_EQ(logs["returned_count"].GetInt(), 5);
  EXPECT_TRUE(logs["has_more"].GetBool());
  EXPECT_STREQ(logs["entries"][0]["level"].GetString(), "err");
  // "since": "yesterday" never reaches the handler (the input schema's date-time format refuses
  // it); a window that ends before it starts does.
  EXPECT_EQ(refusal(tool("logs", "app", "get"), R"({"since":"2025-11-22T09:00:00Z","until":"2025-11-22T08:00:00Z"})").message,
            "invalid_argument: since is after until");
  const json::Document none = call(tool("logs", "app", "get"), R"({"since":null,"until":null,"contains":"no such text"})");
  EXPECT_EQ(none["returned_count"].GetInt(), 0);
  EXPECT_STREQ(call(tool("mgmt", "server", "get"))["started_at"].GetString(), "2025-11-22T08:26:40Z");
}

// A reading the device cannot take is named with why (system.health.snapshot.output@1.2.0,
// issue 37 item 4), not left out: on a recorded Pi both are read, on a tree with neither sensor
// nor firmware both are named.
TEST_F(CatalogueHandlers, HealthNamesTheReadingsItCannotTakeAndWhy) {
  const CommandRunner no_helpers = [](const std::vector<std::string>&) { return std::optional<std::string>(); };
  const auto snapshot = [&](const std::string& root) {
    HealthHandler health(services_, root, no_helpers);
    const json::Document args(rapidjson::kObjectType);
    json::Document d = health.run({"snapshot", args}).value();
    const auto bad = schemas_->validate("mcp://schemas/system.health.snapshot.output@1.2.0", d);
    EXPECT_FALSE(bad) << json::to_string(d) << "\n" << bad->path << ": " << bad->message;
    return d;
  };
  const json::Document pi = snapshot(FLEETMCP_SOURCE_DIR "/tests/fixtures/catalogue/pi");
  EXPECT_TRUE(pi.HasMember("cpu_temperature_celsius") && pi.HasMember("throttling_flags"));
  EXPECT_FALSE(pi.HasMember("unavailable")) << json::to_string(pi);
  const json::Document bare = snapshot(FLEETMCP_SOURCE_DIR "/tests/fixtures/catalogue/io_before");
  EXPECT_FALSE(bare.HasMember("cpu_temperature_celsius"));
  ASSERT_TRUE(bare.HasMember("unavailable")) << json::to_string(bare);
  EXPECT_EQ(json::to_string(bare["unavailable"]), R"({"cpu_temperature_celsius":"no_sensor","throttling_flags":"no_firmware_report"})");
}

TEST_F(CatalogueHandlers, GpioMustBeConfiguredBeforeItIsDrivenAndRevertsAreCancelledByANewWrite) {
  const std::string set = tool("gpio", "gpio17", "set");
  const ErrorEnvelope e = refusal(set, R"({"value":"high"})");
  EXPECT_EQ(e.code, ErrorCode::kBadRequest);
  EXPECT_EQ(e.message, "failed_precondition: the pin is not configured as an output");
  EXPECT_STREQ(call(tool("gpio", "gpio17", "invoke"), R"({"mode":"output"})")["mode"].GetString(), "output");
  json::Document d = call(set, R"({"value":"high","duration_ms":600000})");
  EXPECT_STREQ(d["value"].GetString(), "high");
  EXPECT_TRUE(d["revert_in_ms"].IsInt64());
  EXPECT_GT(d["revert_in_ms"].GetInt64(), 590000);
  EXPECT_EQ(timers_.pending(), 1u);
  d = call(set, R"({"value":"low"})");  // the newest intent wins: the pending revert is dropped
  EXPECT_TRUE(d["revert_in_ms"].IsNull());
  EXPECT_EQ(timers_.pending(), 0u);
  EXPECT_STREQ(call(tool("gpio", "gpio17", "get"))["value"].GetString(), "low");
  d = call(tool("gpio", "gpio17", "invoke"), R"({"mode":"input","pull":"up"})");
  EXPECT_STREQ(d["value"].GetString(), "high");  // an input with a pull-up reads high
  EXPECT_EQ(tools_->find(tool("gpio", "button", "set")), nullptr);
}

// Doc 05 §5.1 gpio.list_pins lists the pins the server allows and what it allows on each; a
// capability is one allowed pin, and its get says which modes the configuration allows (D28).
TEST_F(CatalogueHandlers, GpioGetSaysWhichModesTheConfigurationAllows) {
  const json::Document button = call(tool("gpio", "button", "get"));
  EXPECT_EQ(button["pin"].GetInt(), 27);
  ASSERT_EQ(button["allowed_modes"].Size(), 1u);
  EXPECT_STREQ(button["allowed_modes"][0].GetString(), "input");
  const json::Document relay = call(tool("gpio", "gpio17", "get"));
  ASSERT_EQ(relay["allowed_modes"].Size(), 2u);
  EXPECT_STREQ(relay["allowed_modes"][1].GetString(), "output");
}

// duration_ms means "at most that long": a node that stops first restores the pin on the way out.
TEST(CatalogueGpio, APendingRevertIsAppliedWhenTheHandlerGoes) {
  TimerQueue timers;
  auto writes = std::make_shared<std::vector<bool>>();
  {
    GpioHandler handler(std::make_unique<RecordingLine>(writes), 17, true, &timers);
    const json::Document args = json::parse_strict(R"({"value":"high","duration_ms":600000})").value();
    EXPECT_TRUE(handler.run({"set", args}).ok());
    EXPECT_EQ(timers.pending(), 1u);
  }
  EXPECT_EQ(timers.pending(), 0u);
  EXPECT_EQ(*writes, (std::vector<bool>{true, false}));  // driven high, then restored at once
}

TEST_F(CatalogueHandlers, PwmReportsTheEffectiveState) {
  const json::Document d = call(tool("pwm", "pwm0", "set"), R"({"frequency_hz":3,"duty_cycle_percent":33.3333})");
  EXPECT_EQ(d["pin"].GetInt(), 18);
  EXPECT_DOUBLE_EQ(d["frequency_hz"].GetDouble(), 3.0);  // period 333333333 ns
  EXPECT_DOUBLE_EQ(d["duty_cycle_percent"].GetDouble(), 33.333);
  EXPECT_TRUE(d["enabled"].GetBool());
  EXPECT_FALSE(call(tool("pwm", "pwm0", "set"), R"({"frequency_hz":50,"duty_cycle_percent":0})")["enabled"].GetBool());
}

TEST_F(CatalogueHandlers, I2cKeepsToItsAllowList) {
  json::Document d = call(tool("i2c", "i2c1", "snapshot"));
  EXPECT_EQ(json::to_string(d["addresses"]), "[72,118]");  // 0x77 is allowed but nothing answers
  d = call(tool("i2c", "i2c1", "set"), R"({"address":72,"register":16,"data":[1,2,3]})");
  EXPECT_EQ(d["bytes_written"].GetInt(), 4);
  d = call(tool("i2c", "i2c1", "get"), R"({"address":72,"register":16,"length":4})");
  EXPECT_EQ(json::to_string(d["data"]), "[1,2,3,91]");  // register 19 still holds 0x48 + 19
  const ErrorEnvelope e = refusal(tool("i2c", "i2c1", "get"), R"({"address":80,"length":1})");
  EXPECT_EQ(e.code, ErrorCode::kSafetyDenied);
  EXPECT_EQ(e.message, "permission_denied: address 80 is not in this capability's allow-list (72, 118, 119)");
  EXPECT_EQ(refusal(tool("i2c", "i2c1", "get"), R"({"address":119,"length":1})").message,
            "failed_precondition: no device acknowledged address 119");
}

// Issue 17 item 3: get needs only tools:call:read_only, but a register read writes the register
// pointer first (a write on PCF8574-style boards): only registers listed as readable are read.
TEST_F(CatalogueHandlers, I2cReadsOnlyRegistersListedAsReadable) {
  const ErrorEnvelope e = refusal(tool("i2c", "i2c1", "get"), R"({"address":72,"register":17,"length":1})");
  EXPECT_EQ(e.code, ErrorCode::kSafetyDenied);
  EXPECT_EQ(e.message,
            "permission_denied: reading register 17 writes the register pointer first, and it is not listed as safe "
            "to read (16)");
  EXPECT_NE(e.suggested_fix.find("readable_registers="), std::string::npos);
  EXPECT_EQ(json::to_string(call(tool("i2c", "i2c1", "get"), R"({"address":72,"length":2})")["data"]), "[72,73]")
      << "a read without a register writes nothing and is allowed";
}

TEST_F(CatalogueHandlers, ServiceActionsAndEnablement) {
  json::Document d = call(tool("svc", "nginx", "invoke"), R"({"action":"stop"})");
  EXPECT_STREQ(d["previous_status"].GetString(), "active");
  EXPECT_STREQ(d["status"].GetString(), "inactive");
  d = call(tool("svc", "nginx", "set"), R"({"enabled":false})");
  EXPECT_STREQ(d["unit_file_state"].GetString(), "disabled");
  d = call(tool("svc", "nginx", "get"));
  EXPECT_STREQ(d["status"].GetString(), "inactive");
  EXPECT_FALSE(d["enabled"].GetBool());
  EXPECT_EQ(refusal(tool("svc", "nginx", "invoke"), R"({"action":"reload"})").message,
            "failed_precondition: the unit does not support reload");
}

// Doc 05 addendum §6.1: stop and disable are refused while running services depend on the unit,
// naming them in the form the plugin reads; force with confirm_breaking_dependencies goes ahead.
TEST_F(CatalogueHandlers, StopAndDisableAreRefusedWhileServicesDependOnTheUnit) {
  UnitWithDependents unit;
  const auto refused = [&](const char* verb, const char* arguments) {
    const Status allowed = refuse_breaking_dependents(unit, {verb, json::parse_strict(arguments).value()});
    return allowed ? ErrorEnvelope() : allowed.error();
  };
  for (const auto& [verb, arguments] : {std::pair{"invoke", R"({"action":"stop"})"}, std::pair{"set", R"({"enabled":false})"}}) {
    const ErrorEnvelope e = refused(verb, arguments);
    EXPECT_EQ(e.code, ErrorCode::kBadRequest) << verb;
    EXPECT_EQ(e.message,
              "failed_precondition: dependent_services=[NetworkManager.service,bluetooth.service] 2 active services "
              "depend on the unit");
  }
  // What does not stop the unit, and the confirmed override, pass.
  for (const auto& [verb, arguments] :
       {std::pair{"invoke", R"({"action":"restart"})"}, std::pair{"set", R"({"enabled":true})"},
        std::pair{"invoke", R"({"action":"stop","force":true,"confirm_breaking_dependencies":true})"},
        std::pair{"set", R"({"enabled":false,"force":true,"confirm_breaking_dependencies":true})"}}) {
    EXPECT_EQ(refused(verb, arguments).message, "") << verb << " " << arguments;
  }
  EXPECT_EQ(refused("invoke", R"({"action":"stop","force":true})").message,
            "invalid_argument: force needs confirm_breaking_dependencies=true");
  // The schema says the same before any handler runs.
  EXPECT_TRUE(schemas_->validate("mcp://schemas/service.unit.invoke.input@1.1.0",
                                 json::parse_strict(R"({"action":"stop","force":true})").value()));
  EXPECT_TRUE(schemas_->validate("mcp://schemas/service.unit.set.input@1.1.0",
                                 json::parse_strict(R"({"enabled":false,"force":true,"confirm_breaking_dependencies":false})").value()));
  EXPECT_FALSE(schemas_->validate("mcp://schemas/service.unit.set.input@1.1.0",
                                  json::parse_strict(R"({"enabled":false,"force":true,"confirm_breaking_dependencies":true})").value()));
}

TEST_F(CatalogueHandlers, CameraWritesOnlyGeneratedPathsAndKeepsMaxFiles) {
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    const json::Document d = call(tool("cam", "camera0", "invoke"), R"({"resolution":"640x480","quality":70})");
    paths.emplace_back(d["file_path"].GetString());
    EXPECT_EQ(paths.back().rfind((photo_dir_ / "camera0-").string(), 0), 0u) << paths.back();
    EXPECT_EQ(d["width"].GetInt(), 640);
    EXPECT_EQ(d["preview"]["width"].GetInt(), 320);
    EXPECT_LE(std::string(d["preview"]["data_base64"].GetString()).size(), 32768u);
    EXPECT_EQ(fs::file_size(paths.back()), d["size_bytes"].GetUint64());
    std::ifstream f(paths.back(), std::ios::binary);
    char soi[2];
    f.read(soi, 2);
    EXPECT_EQ(std::string(soi, 2), "\xFF\xD8");  // a JPEG
  }
  EXPECT_FALSE(fs::exists(paths[0]));  // max_files=2: the oldest went
  EXPECT_TRUE(fs::exists(paths[2]));
}

// Doc 05 §7.1's second format. The pixels are checked end to end by an independent decoder
// (catalogue_e2e.sh, pngjs); here: the file is a PNG, named .png, and pruned with the JPEGs.
TEST_F(CatalogueHandlers, CameraPngIsStoredAsPngAndCountsTowardsMaxFiles) {
  const json::Document jpeg = call(tool("cam", "camera0", "invoke"), R"({"resolution":"640x480"})");
  const json::Document png = call(tool("cam", "camera0", "invoke"), R"({"resolution":"640x480","format":"png"})");
  EXPECT_STREQ(png["format"].GetString(), "png");
  const std::string path = png["file_path"].GetString();
  EXPECT_EQ(path.substr(path.size() - 4), ".png");
  EXPECT_EQ(fs::file_size(path), png["size_bytes"].GetUint64());
  std::ifstream f(path, std::ios::binary);
  char signature[8];
  f.read(signature, 8);
  EXPECT_EQ(std::string(signature, 8), "\x89PNG\r\n\x1A\n");
  EXPECT_STREQ(png["preview"]["mime_type"].GetString(), "image/jpeg");  // the preview stays small
  call(tool("cam", "camera0", "invoke"), R"({"resolution":"640x480","format":"png"})");
  EXPECT_FALSE(fs::exists(jpeg["file_path"].GetString()));  // max_files=2 counts both formats
  EXPECT_TRUE(fs::exists(path));
}

// logs.audit (Doc 05 §2.2): the capability turns the node's audit on with its bound, and get pages
// it newest first with a cursor; the dispatcher's recording is in device_dispatcher_test.cc.
TEST_F(CatalogueHandlers, AuditGetPagesTheNodesOwnAuditByCursor) {
  EXPECT_EQ(audit_.capacity(), CommandAudit::kDefaultCapacity);
  for (int i = 1; i <= 3; ++i) {
    audit_.record({0, 1763800000000 + i, "01JD3X4M5N6P7Q8R9S0T1V2W3" + std::to_string(i), "gpio17", "set",
                   i == 2 ? "E_SAFETY_DENIED" : "ok", 4});
  }
  const json::Document first = call(tool("audit", "audit", "get"), R"({"limit":2})");
  ASSERT_EQ(first["entries"].Size(), 2u);
  EXPECT_EQ(first["entries"][0]["seq"].GetInt(), 3);
  EXPECT_STREQ(first["entries"][1]["outcome"].GetString(), "E_SAFETY_DENIED");
  EXPECT_STREQ(first["entries"][1]["timestamp"].GetString(), "2025-11-22T08:26:40.002Z");
  EXPECT_EQ(first["retained"].GetInt(), 3);
  EXPECT_EQ(first["capacity"].GetInt(), 1000);  // 500 reads and 500 actuations
  const std::string cursor = first["next_cursor"].GetString();
  const json::Document last = call(tool("audit", "audit", "get"), R"({"limit":2,"cursor":")" + cursor + R"("})");
  ASSERT_EQ(last["entries"].Size(), 1u);
  EXPECT_EQ(last["entries"][0]["seq"].GetInt(), 1);
  EXPECT_TRUE(last["next_cursor"].IsNull());
}

// Doc 05 gives `pin` minimum 1; BCM numbering starts at GPIO0, which a capability may name
// (docs/protocol.md D33): its state reports pin 0 and validates against gpio.pin.state.
TEST_F(CatalogueHandlers, GpioLineZeroIsAPin) {
  const ToolTable table = ToolTable::build({capability("gpio0", "gpio.pin", {{"line", "0"}})}, schemas_->kinds(),
                                           HandlerCatalogue::builtin(), services_);
  const ToolEntry* get = table.find(tool("gpio", "gpio0", "get"));
  ASSERT_NE(get, nullptr);
  const json::Document args = json::parse_strict("{}").value();
  const json::Document state = get->handler->run({get->verb, args}).value();
  EXPECT_EQ(state["pin"].GetInt(), 0);
  const auto bad = schemas_->validate(get->output_schema, state);
  EXPECT_FALSE(bad) << json::to_string(state);
}

TEST_F(CatalogueHandlers, PowerAndSelfUpdate) {
  const json::Document d = call(tool("power", "reboot", "invoke"), R"({"reason":"kernel update","delay_seconds":30})");
  EXPECT_TRUE(d["scheduled"].GetBool());
  EXPECT_EQ(d["effective_after_seconds"].GetInt(), 30);
  EXPECT_STREQ(d["action"].GetString(), "reboot");
  const json::Document u = call(tool("mgmt", "server", "invoke"), R"({"channel":"stable"})");
  EXPECT_STREQ(u["status"]["status"].GetString(), "pending");
  EXPECT_STREQ(call(tool("mgmt", "server", "get"))["last_update"]["status"].GetString(), "pending");
}

TEST_F(CatalogueHandlers, ConfigurationMistakesNameTheLine) {
  auto build_fails_with = [&](CapabilityConfig cap, const std::string& message) {
    try {
      ToolTable::build({cap}, schemas_->kinds(), HandlerCatalogue::builtin(), services_);
      ADD_FAILURE() << "accepted " << cap.cap_id;
    } catch (const Error& e) {
      EXPECT_EQ(e.envelope().message, message);
    }
  };
  build_fails_with(capability("gpio17", "gpio.pin"), "device.conf:12: capability.gpio17: line: required for kind gpio.pin");
  build_fails_with(capability("audit2", "logs.audit", {{"file", "audit.jsonl"}}),
                   "device.conf:12: capability.audit2: file: must be an absolute path");
  build_fails_with(capability("gpio17", "gpio.pin", {{"line", "17"}, {"pins", "18"}}),
                   "device.conf:12: capability.gpio17: pins: unknown setting for kind gpio.pin (docs/catalogue.md lists them)");
  build_fails_with(capability("off", "system.power", {{"action", "shutdown"}}),
                   "device.conf:12: capability.off: action: shutdown also needs allow_shutdown=true (a powered-off "
                   "device needs someone on site)");
  build_fails_with(capability("web", "service.unit", {{"unit", "../etc/passwd"}}),
                   "device.conf:12: capability.web: unit: must be a systemd unit name such as nginx.service");
  build_fails_with(capability("i2c1", "i2c.bus", {{"bus", "1"}, {"addresses", "0x48,0x99"}}),
                   "device.conf:12: capability.i2c1: addresses: must be a comma-separated list of integers from 0 to 127");
  services_.simulated = false;
  build_fails_with(capability("cam", "camera.still"),
                   "device.conf:12: capability.cam: dir: required: the directory photos are written to, e.g. "
                   "/var/lib/fleetmcp/photos");
}

// ---- real backends on a machine without the hardware ------------------------------------------

template <typename T>
void expect_refusal(const Result<T>& result, ErrorCode code, const std::string& starts_with) {
  ASSERT_FALSE(result.ok()) << "no error; expected " << starts_with;
  const ErrorEnvelope& e = result.error();
  EXPECT_EQ(e.code, code) << e.message;
  EXPECT_EQ(e.message.rfind(starts_with, 0), 0u) << e.message;
  EXPECT_FALSE(e.suggested_fix.empty());
}

template <typename T>
void expect_failed_precondition(const Result<T>& result, const std::string& starts_with) {
  expect_refusal(result, ErrorCode::kBadRequest, "failed_precondition: " + starts_with);
}

TEST(CatalogueRealBackends, AbsentHardwareIsAFailedPrecondition) {
  expect_failed_precondition(make_gpiod_line("gpiochip97", 17)->read(), "no GPIO chip 'gpiochip97' on this device");
  expect_failed_precondition(make_i2c_dev_bus(97)->read(0x48, 0, 1), "cannot open /dev/i2c-97");
  expect_failed_precondition(make_sysfs_pwm_channel("/nonexistent/pwm", 0, 0)->read(),
                             "no PWM chip at /nonexistent/pwm/pwmchip0");
  expect_failed_precondition(make_sd_journal_source({"x.service"}, {"/nonexistent/journal"})->query({}),
                             "this device has no systemd journal");
  // Through the helper process, as the device does it (this machine has no camera).
  const std::string helper = FLEETMCP_BINARY_DIR "/device_client/fleetmcp-camera-still";
  expect_failed_precondition(make_camera_helper_source(helper, 7)->capture(640, 480), "no camera 7 on this device");
  expect_failed_precondition(make_camera_helper_source("/nonexistent/helper", 0)->capture(640, 480),
                             "the camera helper /nonexistent/helper is not installed");
  if (!fs::exists("/run/dbus/system_bus_socket")) {
    // Doc 05 §9.1.1 unavailable: the dependency may come back.
    expect_refusal(make_sd_bus_service("nginx.service")->status(), ErrorCode::kInternal,
                   "unavailable: systemd is not reachable over D-Bus");
    expect_refusal(make_logind_power()->schedule("reboot", 5), ErrorCode::kInternal,
                   "unavailable: logind is not reachable over D-Bus");
  }
}

TEST(CatalogueRealBackends, SysfsPwmWritesInAnOrderTheKernelAccepts) {
  const fs::path root = fs::temp_directory_path() / ("fleetmcp-pwm-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "pwmchip0" / "pwm1");
  for (auto [name, value] : {std::pair{"period", "1000000"}, {"duty_cycle", "500000"}, {"enable", "0"}}) {
    std::ofstream(root / "pwmchip0" / "pwm1" / name) << value;
  }
  auto channel = make_sysfs_pwm_channel(root.string(), 0, 1);
  PwmState s = channel->read().value();
  EXPECT_DOUBLE_EQ(s.frequency_hz, 1000);
  EXPECT_DOUBLE_EQ(s.duty_cycle_percent, 50);
  s = channel->set(2000, 25).value();  // a shorter period: duty first (the file check is the same here)
  EXPECT_DOUBLE_EQ(s.frequency_hz, 2000);
  EXPECT_DOUBLE_EQ(s.duty_cycle_percent, 25);
  EXPECT_TRUE(s.enabled);
  fs::remove_all(root);
}

}  // namespace
}  // namespace fleetmcp::device

namespace fleetmcp::device {
namespace {

TEST(CatalogueSimulatedFleet, AddsEveryKindAndKeepsTheNodesOwnCapabilities) {
  DeviceConfig config;
  config.node_id = kNode;
  config.tenant = "acme";
  config.broker_uri = "mqtts://127.0.0.1:8883";
  config.capabilities.push_back(capability("gpio17", "gpio.pin", {{"line", "4"}}));  // the node's own
  add_simulated_catalogue(config);
  std::set<std::string> kinds, ids;
  for (const auto& cap : config.capabilities) {
    kinds.insert(cap.kind);
    EXPECT_TRUE(ids.insert(cap.cap_id).second) << "cap_id twice: " << cap.cap_id;
  }
  EXPECT_EQ(kinds.size(), 13u);  // the 12 Doc 05 kinds and logs.audit
  EXPECT_EQ(config.capabilities.front().settings.front().value, "4");  // not replaced
  EXPECT_EQ(config.capabilities.size(), simulated_catalogue_lines().size());
}

TEST(CatalogueSimulatedFleet, CatalogueNeedsSimulate) {
  const char* with[] = {"fleetmcp-device", "--simulate", "2", "--bundle-dir", "/tmp", "--catalogue"};
  EXPECT_TRUE(parse_cli(6, with)->catalogue);
  const char* without[] = {"fleetmcp-device", "--catalogue"};
  const auto refused = parse_cli(2, without);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--catalogue is only used with --simulate N"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace fleetmcp::device
