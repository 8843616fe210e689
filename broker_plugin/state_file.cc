#include "broker_plugin/state_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/error.h"
#include "common/file_text.h"
#include "common/json.h"
#include "common/ulid.h"

namespace fleetmcp::plugin {
namespace {

constexpr int kVersion = 1;

Error damaged(const std::string& path, const std::string& what) {
  return Error(ErrorCode::kInternal, "plugin state file " + path + ": " + what,
               "restore it from a backup, or delete it to start over (nodes re-announce; replay history is lost)");
}

PersistedNode node_from(const json::Value& v, const std::string& path) {
  PersistedNode n;
  n.node_id = json::get_string(v, "node_id").value_or("");
  n.tenant = json::get_string(v, "tenant").value_or("");
  n.certificate_pem = json::get_string(v, "certificate").value_or("");
  n.last_issued_at_ms = json::get_int64(v, "last_issued_at_ms");
  n.hw_fingerprint = json::get_string(v, "hw_fingerprint").value_or("");
  n.hw_kid = json::get_string(v, "hw_kid").value_or("");
  n.remote = json::get_bool(v, "remote").value_or(false);
  if (!is_node_id(n.node_id)) throw damaged(path, "an entry has no valid node_id");
  return n;
}

void write_string(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, const std::string& value) {
  if (value.empty()) return;
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

}  // namespace

std::vector<PersistedNode> load_state_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const auto text = try_read_file(path);
  if (!text) throw damaged(path, "cannot be read");
  json::Document doc;
  try {
    doc = json::parse_strict(*text, ErrorCode::kInternal, {.max_bytes = size_t{1} << 30, .max_depth = 8});
  } catch (const Error& e) {
    throw damaged(path, e.envelope().message);
  }
  if (!doc.IsObject() || json::get_int64(doc, "version") != kVersion) throw damaged(path, "not a version 1 state");
  const json::Value* nodes = json::find(doc, "nodes");
  if (nodes == nullptr || !nodes->IsArray()) throw damaged(path, "no nodes array");
  std::vector<PersistedNode> out;
  for (const auto& v : nodes->GetArray()) {
    if (!v.IsObject()) throw damaged(path, "a node entry is not an object");
    out.push_back(node_from(v, path));
  }
  return out;
}

void save_state_file(const std::string& path, const std::vector<PersistedNode>& nodes) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("version");
  w.Int(kVersion);
  w.Key("nodes");
  w.StartArray();
  for (const auto& n : nodes) {
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
  w.EndObject();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(buf.GetString(), static_cast<std::streamsize>(buf.GetSize()));
    if (!out) throw Error(ErrorCode::kInternal, "cannot write plugin state file " + tmp, "check plugin_opt_state_file");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw Error(ErrorCode::kInternal, "cannot replace plugin state file " + path, "check plugin_opt_state_file");
  }
}

}  // namespace fleetmcp::plugin
