#include "tests/support/test_schemas.h"

#include <filesystem>

#include "common/crypto/digest.h"
#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"
#include "tests/support/test_files.h"

namespace fleetmcp::http::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRelayKind = R"({
  "kind": "test.relay",
  "kind_short": "relay",
  "schema_ref": "mcp://schemas/test.relay@1.0.0",
  "source": "fleetmcp HTTP front tests",
  "verbs": [
    {"verb": "set", "input": "mcp://schemas/test.relay.set.input@1.0.0", "output": "mcp://schemas/test.relay.state@1.0.0",
     "description": "Switch relay {cap_id} of device {node_id} on or off. Argument on: boolean."},
    {"verb": "get", "input": "mcp://schemas/test.relay.get.input@1.0.0", "output": "mcp://schemas/test.relay.state@1.0.0",
     "description": "Read whether relay {cap_id} of device {node_id} is on.", "stability": "alpha"}
  ]
})";

const std::pair<std::string_view, std::string_view> kFiles[] = {
    {"test.relay@1.0.0.json", R"({"$id":"mcp://schemas/test.relay@1.0.0","type":"object"})"},
    {"test.relay.set.input@1.0.0.json",
     R"({"$id":"mcp://schemas/test.relay.set.input@1.0.0","type":"object","additionalProperties":false,"required":["on"],"properties":{"on":{"type":"boolean"}}})"},
    {"test.relay.get.input@1.0.0.json",
     R"({"$id":"mcp://schemas/test.relay.get.input@1.0.0","type":"object","additionalProperties":false})"},
    {"test.relay.state@1.0.0.json",
     R"({"$id":"mcp://schemas/test.relay.state@1.0.0","type":"object","additionalProperties":false,"required":["on","node_id"],"properties":{"on":{"type":"boolean"},"node_id":{"type":"string"}}})"},
};

}  // namespace

std::string write_test_schemas(const std::string& source_dir, const std::string& target_dir) {
  fs::create_directories(target_dir);
  for (const auto& entry : fs::directory_iterator(source_dir)) {
    if (entry.is_regular_file()) fs::copy_file(entry.path(), fs::path(target_dir) / entry.path().filename(), fs::copy_options::overwrite_existing);
  }
  json::Document kinds = json::parse_strict(read_file(fs::path(target_dir) / "kinds.json").value()).value();
  json::Document relay = json::parse_strict(kRelayKind).value();
  json::Value row;
  row.CopyFrom(relay, kinds.GetAllocator());
  kinds["kinds"].PushBack(row, kinds.GetAllocator());
  const std::string kinds_text = json::to_string(kinds);
  fleetmcp::testing::write_test_file(fs::path(target_dir) / "kinds.json", kinds_text);

  json::Document index = json::parse_strict(read_file(fs::path(target_dir) / "index.json").value()).value();
  auto& a = index.GetAllocator();
  for (auto& row_value : index.GetArray()) {
    if (json::get_string(row_value, "file") == std::optional<std::string_view>("kinds.json")) {
      row_value["sha256"] = json::string_value(sha256_hex(kinds_text), a);
    }
  }
  for (const auto& [file, text] : kFiles) {
    fleetmcp::testing::write_test_file(fs::path(target_dir) / std::string(file), text);
    const json::Document doc = json::parse_strict(text).value();
    json::Value r(rapidjson::kObjectType);
    r.AddMember("id", json::string_value(*json::get_string(doc, "$id"), a), a);
    r.AddMember("file", json::string_value(file, a), a);
    r.AddMember("sha256", json::string_value(sha256_hex(text), a), a);
    index.PushBack(r, a);
  }
  fleetmcp::testing::write_test_file(fs::path(target_dir) / "index.json", json::to_string(index));
  return target_dir;
}

}  // namespace fleetmcp::http::testing
