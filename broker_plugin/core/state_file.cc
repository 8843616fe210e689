#include "broker_plugin/core/state_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"
#include "common/ids/ulid.h"

namespace fleetmcp::plugin {
namespace {

constexpr int kVersion = 1;

ErrorEnvelope damaged(const std::string& path, const std::string& what) {
  return ErrorEnvelope(ErrorCode::kInternal, "plugin state file " + path + ": " + what,
               "restore it from a backup, or delete it to start over (nodes re-announce; replay history is lost)");
}

Result<PersistedNode> node_from(const json::Value& v, const std::string& path) {
  PersistedNode n;
  n.node_id = json::get_string(v, "node_id").value_or("");
  n.tenant = json::get_string(v, "tenant").value_or("");
  n.certificate_pem = json::get_string(v, "certificate").value_or("");
  n.last_issued_at_ms = json::get_int64(v, "last_issued_at_ms");
  n.hw_fingerprint = json::get_string(v, "hw_fingerprint").value_or("");
  n.hw_kid = json::get_string(v, "hw_kid").value_or("");
  n.remote = json::get_bool(v, "remote").value_or(false);
  if (!is_node_id(n.node_id)) return damaged(path, "an entry has no valid node_id");
  return n;
}

Result<DurableClaim> claim_from(const json::Value& v, const std::string& path) {
  DurableClaim c;
  c.client_id = json::get_string(v, "client_id").value_or("");
  const auto kind = principal_kind_from_name(json::get_string(v, "kind").value_or(""));
  if (c.client_id.empty() || !kind || (*kind != PrincipalKind::kAgent && *kind != PrincipalKind::kBridge)) {
    return damaged(path, "a client_ids entry has no client_id or no agent or bridge kind");
  }
  c.owner = {*kind, std::string(json::get_string(v, "tenant").value_or("")),
             std::string(json::get_string(v, "sub").value_or(""))};
  return c;
}

// The array `key` of the document, each object entry read by `read` (a Result<T>); absent = empty.
template <typename T>
Result<std::vector<T>> entries(const json::Value& doc, const char* key, const std::string& path,
                               Result<T> (*read)(const json::Value&, const std::string&)) {
  std::vector<T> out;
  const json::Value* list = json::find(doc, key);
  if (list == nullptr) return out;
  if (!list->IsArray()) return damaged(path, std::string(key) + " is not an array");
  for (const auto& v : list->GetArray()) {
    if (!v.IsObject()) return damaged(path, std::string("an entry of ") + key + " is not an object");
    auto entry = read(v, path);
    if (!entry) return std::move(entry).error();
    out.push_back(std::move(entry).value());
  }
  return out;
}

void write_string(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, const std::string& value) {
  if (value.empty()) return;
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

}  // namespace

Result<PersistedState> load_state_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return PersistedState{};
  const auto text = try_read_file(path);
  if (!text) return damaged(path, "cannot be read");
  const auto parsed = json::parse_strict(*text, ErrorCode::kInternal, {.max_bytes = size_t{1} << 30, .max_depth = 8});
  if (!parsed) return damaged(path, parsed.error().message);
  const json::Document& doc = *parsed;
  if (!doc.IsObject() || json::get_int64(doc, "version") != kVersion) return damaged(path, "not a version 1 state");
  if (json::find(doc, "nodes") == nullptr) return damaged(path, "no nodes array");
  auto nodes = entries(doc, "nodes", path, node_from);
  if (!nodes) return std::move(nodes).error();
  auto claims = entries(doc, "client_ids", path, claim_from);
  if (!claims) return std::move(claims).error();
  return PersistedState{std::move(nodes).value(), std::move(claims).value()};
}

Status save_state_file(const std::string& path, const PersistedState& state) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("version");
  w.Int(kVersion);
  w.Key("nodes");
  w.StartArray();
  for (const auto& n : state.nodes) {
    w.StartObject();
    write_string(w, "node_id", n.node_id);
    write_string(w, "tenant", n.tenant);
    write_string(w, "certificate", n.certificate_pem);
    if (n.last_issued_at_ms) {
      w.Key("last_issued_at_ms");
      w.Int64(*n.last_issued_at_ms);
    }
    write_string(w, "hw_fingerprint", n.hw_fingerprint);
    write_string(w, "hw_kid", n.hw_kid);
    if (n.remote) {
      w.Key("remote");
      w.Bool(true);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("client_ids");
  w.StartArray();
  for (const auto& c : state.client_ids) {
    w.StartObject();
    write_string(w, "client_id", c.client_id);
    write_string(w, "kind", std::string(principal_kind_name(c.owner.kind)));
    write_string(w, "tenant", c.owner.tenant);
    write_string(w, "sub", c.owner.name);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(buf.GetString(), static_cast<std::streamsize>(buf.GetSize()));
    if (!out) return ErrorEnvelope(ErrorCode::kInternal, "cannot write plugin state file " + tmp, "check plugin_opt_state_file");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return ErrorEnvelope(ErrorCode::kInternal, "cannot replace plugin state file " + path, "check plugin_opt_state_file");
  }
  return {};
}

}  // namespace fleetmcp::plugin
