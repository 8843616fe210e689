// The schema registry's test fixture, shared by the test files of common/registry/ that validate
// through it (schema_registry_test.cc, fast_visitor_test.cc, own_constraints_test.cc): the registry
// over the real schemas/ directory with stock valijson as the oracle every verdict is compared
// with, a temporary copy of schemas/ to tamper with, a valid manifest@1.1.0 to vary, and one
// schema compiled the registry's way (keyword_renaming.h, own_constraints.h) for the parts' tests.
#pragma once

// valijson itself, unmodified, is the oracle the registry's validation is compared with.
#include "common/registry/valijson_include.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/file_text.h"
#include "common/base/json.h"
#include "common/crypto/digest.h"
#include "common/registry/keyword_renaming.h"
#include "common/registry/own_constraints.h"
#include "common/registry/schema_registry.h"
#include "tests/support/test_files.h"

namespace fleetmcp::testing {

inline const std::filesystem::path kSchemasDir = std::filesystem::path(FLEETMCP_SOURCE_DIR) / "schemas";
inline constexpr std::string_view kNode = "01hzx9k3m4p7q8r9s0t1v2w3xy";

// Every schema file compiled by stock valijson (its own pattern/const/enum/type, std::regex).
class Oracle {
 public:
  explicit Oracle(const std::filesystem::path& dir = kSchemasDir) {
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

  inline static std::shared_ptr<const SchemaRegistry> registry_;
  inline static std::unique_ptr<Oracle> oracle_;
};

// A temporary copy of schemas/ for tampering; removed afterwards.
class TempSchemas {
 public:
  TempSchemas() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fleetmcp-schemas-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    for (const auto& e : std::filesystem::directory_iterator(kSchemasDir)) std::filesystem::copy_file(e.path(), dir_ / e.path().filename());
  }
  ~TempSchemas() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& dir() const { return dir_; }

  // Adds a document and its index row.
  void add(const std::string& id, const std::string& file, std::string_view text) const {
    write_test_file(dir_ / file, text);
    std::string index = read_file(dir_ / "index.json").value();
    index.insert(index.find('[') + 1, "\n  {\"id\": \"" + id + "\", \"file\": \"" + file + "\", \"sha256\": \"" +
                                          sha256_hex(std::string(text)) + "\"},");
    write_test_file(dir_ / "index.json", index);
  }

  // Replaces the first `from` in `file` with `to`, as a hand edit would (index.json left as it is).
  void edit(const std::string& file, std::string_view from, std::string_view to) const {
    std::string text = read_file(dir_ / file).value();
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " is not in " << file;
    text.replace(at, from.size(), to);
    write_test_file(dir_ / file, text);
  }

  // Rewrites index.json's sha256 for `file` to match its current bytes (an "intended" change).
  void reindex(const std::string& file) const {
    std::string index = read_file(dir_ / "index.json").value();
    const auto row = index.find("\"file\": \"" + file + "\"");
    ASSERT_NE(row, std::string::npos) << file;
    const auto sha = index.find("\"sha256\": \"", row) + 11;
    index.replace(sha, 64, sha256_hex(read_file(dir_ / file).value()));
    write_test_file(dir_ / "index.json", index);
  }

 private:
  std::filesystem::path dir_;
};

// A valid manifest@1.1.0 with the RFC-0005 §9 echo entry and a metrics entry (docs/protocol.md D2).

inline std::string capability(std::string_view cap_id, std::string_view kind, std::string_view verbs,
                       std::string_view safety = "read_only",
                       std::string_view constraints = R"({"rate_limit_rps":10,"max_concurrency":4,"deadline_ms_default":2000})",
                       std::string_view schema_ref = "") {
  std::string ref = schema_ref.empty() ? "mcp://schemas/" + std::string(kind) + "@1.0.0" : std::string(schema_ref);
  return R"({"cap_id":")" + std::string(cap_id) + R"(","kind":")" + std::string(kind) + R"(","schema_ref":")" + ref +
         R"(","verbs":)" + std::string(verbs) + R"(,"safety_class":")" + std::string(safety) +
         R"(","constraints":)" + std::string(constraints) + "}";
}

inline const std::string kMetricsCap = capability("metrics", "system.metrics", R"(["snapshot","subscribe"])");
inline const std::string kEchoCap =  // RFC-0005 §9, verbatim
    R"({"cap_id":"echo","kind":"system.echo","schema_ref":"mcp://schemas/system.echo.invoke.input@1.0.0",)"
    R"("verbs":["invoke"],"safety_class":"read_only",)"
    R"("constraints":{"rate_limit_rps":10,"max_concurrency":4,"deadline_ms_default":2000}})";

inline std::string manifest(const std::vector<std::string>& caps, std::string_view extra = "") {
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

inline constexpr std::string_view kManifest = "mcp://schemas/manifest@1.1.0";

// `text` compiled as SchemaRegistry::load compiles a document: keywords renamed, our own
// constraints built for them. Throws (a std::runtime_error) what valijson's parser throws.
inline std::unique_ptr<valijson::Schema> compile_schema(std::string_view text) {
  auto doc = json::parse_strict(text).value();
  schema_check::rename_keywords(doc, doc.GetAllocator());
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  schema_check::add_own_constraints(parser);
  auto schema = std::make_unique<valijson::Schema>();
  parser.populateSchema(valijson::adapters::RapidJsonAdapter(doc), *schema);
  return schema;
}

}  // namespace fleetmcp::testing
