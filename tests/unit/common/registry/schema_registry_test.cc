// The schema registry over the real schemas/ directory: integrity (RFC 004 §5.3, fail closed),
// the documents copied from the seeds, the RFC wire examples, the RFC-0001 v1.3 clamps and the
// failure paths and messages a user sees.
#include "common/registry/schema_registry.h"

// valijson itself, unmodified, is the oracle the registry's validation is compared with.
#include "common/registry/valijson_include.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <pthread.h>
#include <set>
#include <thread>

#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/protocol/manifest.h"
#include "tests/support/test_files.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;

const fs::path kSchemasDir = fs::path(FLEETMCP_SOURCE_DIR) / "schemas";
constexpr std::string_view kNode = "01hzx9k3m4p7q8r9s0t1v2w3xy";

// Every schema file compiled by stock valijson (its own pattern/const/enum/type, std::regex).
class Oracle {
 public:
  explicit Oracle(const fs::path& dir = kSchemasDir) {
    const auto index = json::parse_strict(read_file(dir / "index.json").value()).value();
    for (const auto& row : index.GetArray()) {
      const std::string id(*json::get_string(row, "id"));
      if (!id.starts_with("mcp://schemas/")) continue;
      const auto doc = json::parse_strict(read_file(dir / std::string(*json::get_string(row, "file"))).value()).value();
      auto schema = std::make_unique<valijson::Schema>();
      valijson::SchemaParser(valijson::SchemaParser::kDraft7).populateSchema(valijson::adapters::RapidJsonAdapter(doc), *schema);
      schemas_.emplace(id, std::move(schema));
    }
  }
  bool valid(std::string_view id, const json::Value& doc) const {
    const std::string full = id.starts_with("mcp://") ? std::string(id) : "mcp://schemas/" + std::string(id);
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    return validator.validate(*schemas_.at(full), valijson::adapters::RapidJsonAdapter(doc), nullptr);
  }

 private:
  std::map<std::string, std::unique_ptr<valijson::Schema>> schemas_;
};

class SchemaRegistryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = SchemaRegistry::load(kSchemasDir.string());
    oracle_ = std::make_unique<Oracle>();
  }
  static void TearDownTestSuite() {
    registry_.reset();
    oracle_.reset();
  }

  static const SchemaRegistry& reg() { return *registry_; }

  // nullopt = valid. Every verdict is also checked against stock valijson.
  static std::optional<ValidationFailure> check(std::string_view id, std::string_view text) {
    const auto doc = json::parse_strict(text).value();
    auto failure = reg().validate(id, doc);
    EXPECT_EQ(!failure.has_value(), oracle_->valid(id, doc)) << "registry and valijson disagree on " << id << ": " << text;
    return failure;
  }
  static void expect_valid(std::string_view id, std::string_view text) {
    const auto f = check(id, text);
    EXPECT_FALSE(f.has_value()) << id << ": " << (f ? f->path + ": " + f->message : "") << "\n" << text;
  }
  static void expect_invalid(std::string_view id, std::string_view text, std::string_view path,
                             std::string_view message_part) {
    const auto f = check(id, text);
    ASSERT_TRUE(f.has_value()) << id << " accepted: " << text;
    EXPECT_EQ(f->path, path) << f->message;
    EXPECT_NE(f->message.find(message_part), std::string::npos) << f->path << ": " << f->message;
  }

  static std::shared_ptr<const SchemaRegistry> registry_;
  static std::unique_ptr<Oracle> oracle_;
};
std::shared_ptr<const SchemaRegistry> SchemaRegistryTest::registry_;
std::unique_ptr<Oracle> SchemaRegistryTest::oracle_;

// A temporary copy of schemas/ for tampering; removed afterwards.
class TempSchemas {
 public:
  TempSchemas() {
    std::string tmpl = (fs::temp_directory_path() / "fleetmcp-schemas-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    for (const auto& e : fs::directory_iterator(kSchemasDir)) fs::copy_file(e.path(), dir_ / e.path().filename());
  }
  ~TempSchemas() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }

  // Adds a document and its index row.
  void add(const std::string& id, const std::string& file, std::string_view text) const {
    testing::write_test_file(dir_ / file, text);
    std::string index = read_file(dir_ / "index.json").value();
    index.insert(index.find('[') + 1, "\n  {\"id\": \"" + id + "\", \"file\": \"" + file + "\", \"sha256\": \"" +
                                          sha256_hex(std::string(text)) + "\"},");
    testing::write_test_file(dir_ / "index.json", index);
  }

  // Replaces the first `from` in `file` with `to`, as a hand edit would (index.json left as it is).
  void edit(const std::string& file, std::string_view from, std::string_view to) const {
    std::string text = read_file(dir_ / file).value();
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " is not in " << file;
    text.replace(at, from.size(), to);
    testing::write_test_file(dir_ / file, text);
  }

  // Rewrites index.json's sha256 for `file` to match its current bytes (an "intended" change).
  void reindex(const std::string& file) const {
    std::string index = read_file(dir_ / "index.json").value();
    const auto row = index.find("\"file\": \"" + file + "\"");
    ASSERT_NE(row, std::string::npos) << file;
    const auto sha = index.find("\"sha256\": \"", row) + 11;
    index.replace(sha, 64, sha256_hex(read_file(dir_ / file).value()));
    testing::write_test_file(dir_ / "index.json", index);
  }

 private:
  fs::path dir_;
};

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
// A valid manifest@1.1.0 with the RFC-0005 §9 echo entry and a metrics entry (docs/protocol.md D2).

std::string capability(std::string_view cap_id, std::string_view kind, std::string_view verbs,
                       std::string_view safety = "read_only",
                       std::string_view constraints = R"({"rate_limit_rps":10,"max_concurrency":4,"deadline_ms_default":2000})",
                       std::string_view schema_ref = "") {
  std::string ref = schema_ref.empty() ? "mcp://schemas/" + std::string(kind) + "@1.0.0" : std::string(schema_ref);
  return R"({"cap_id":")" + std::string(cap_id) + R"(","kind":")" + std::string(kind) + R"(","schema_ref":")" + ref +
         R"(","verbs":)" + std::string(verbs) + R"(,"safety_class":")" + std::string(safety) +
         R"(","constraints":)" + std::string(constraints) + "}";
}

const std::string kMetricsCap = capability("metrics", "system.metrics", R"(["snapshot","subscribe"])");
const std::string kEchoCap =  // RFC-0005 §9, verbatim
    R"({"cap_id":"echo","kind":"system.echo","schema_ref":"mcp://schemas/system.echo.invoke.input@1.0.0",)"
    R"("verbs":["invoke"],"safety_class":"read_only",)"
    R"("constraints":{"rate_limit_rps":10,"max_concurrency":4,"deadline_ms_default":2000}})";

std::string manifest(const std::vector<std::string>& caps, std::string_view extra = "") {
  std::string list;
  for (const auto& c : caps) list += (list.empty() ? "" : ",") + c;
  return std::string(R"({"manifest_version":"1.1.0","node_id":")") + std::string(kNode) +
         R"(","hw_fingerprint":{"algo":"blake3-256","value":")" + std::string(64, 'a') +
         R"(","sources":["machine_id","mac_primary"]},"node_attestation":{"alg":"Ed25519","kid":")" +
         std::string(64, 'b') + R"(","sig":")" + std::string(86, 'A') + R"(","payload_hash":")" +
         std::string(64, 'c') +
         R"("},"issued_at_ms":1763800000000,"expires_at_ms":1763803600000,"capabilities":[)" + list + "]" +
         std::string(extra) + "}";
}

constexpr std::string_view kManifest = "mcp://schemas/manifest@1.1.0";

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
  EXPECT_EQ(subscribe->input_schema, "mcp://schemas/system.metrics.subscribe.input@1.0.0");
  EXPECT_EQ(subscribe->output_schema, "mcp://schemas/system.metrics.subscribe.output@1.0.0");
}

TEST_F(SchemaRegistryTest, ListIsNameAscendingVersionDescending) {
  const auto all = reg().list();
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const auto* a = all[i];
    const auto* b = all[i + 1];
    EXPECT_TRUE(a->name < b->name || (a->name == b->name && b->version < a->version)) << a->id << " " << b->id;
  }
  const auto errors = reg().versions("error");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0]->id, "mcp://schemas/error@1.2.0");
  EXPECT_EQ(errors[1]->id, "mcp://schemas/error@1.1.0");
  EXPECT_EQ(errors[2]->id, "mcp://schemas/error@1.0.0");
  EXPECT_EQ(reg().resolve("error", *SemVerRange::parse(">=1.0.0"))->id, "mcp://schemas/error@1.2.0");
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
                 "additionalProperties is false");
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
                 "additionalProperties is false");
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
                 "additionalProperties is false");
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
    {"kinds.json", "system.echo.invoke.output@1.0.0", "system.echo.invoke.output@9.0.0", true,
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
