#include "broker_plugin/http/call_audit.h"

#include <memory>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/error.h"

namespace fleetmcp::http {
namespace {

void put(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, std::string_view value) {
  if (value.empty()) return;
  const std::string clean = ascii_clamp(value, 160);
  w.Key(key);
  w.String(clean.c_str(), static_cast<rapidjson::SizeType>(clean.size()));
}

struct FileSink {
  std::mutex mutex;
  std::FILE* file = nullptr;
  bool owned = false;
  ~FileSink() {
    if (owned && file != nullptr) std::fclose(file);
  }
};

}  // namespace

CallAudit CallAudit::to_file(const std::string& path) {
  if (path.empty()) return CallAudit([](std::string_view) {});
  auto sink = std::make_shared<FileSink>();
  if (path == "-") {
    sink->file = stderr;
  } else {
    sink->file = std::fopen(path.c_str(), "a");
    sink->owned = true;
    if (sink->file == nullptr) {
      throw Error(ErrorCode::kBadRequest, "plugin_opt_http_audit_log: cannot open " + path + " for appending",
                  "check the path and that the broker's user may write it");
    }
  }
  return CallAudit([sink](std::string_view line) {
    std::lock_guard<std::mutex> lock(sink->mutex);
    std::fwrite(line.data(), 1, line.size(), sink->file);
    std::fputc('\n', sink->file);
    std::fflush(sink->file);
  });
}

std::string CallAudit::format(const AuditEntry& e, int64_t now_ms) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("ts_ms");
  w.Int64(now_ms);
  put(w, "via", e.via);
  put(w, "caller", e.caller);
  put(w, "tenant", e.tenant);
  put(w, "tool", e.tool);
  put(w, "node_id", e.node_id);
  put(w, "decision", e.decision);
  put(w, "code", e.code);
  if (e.latency_ms) {
    w.Key("latency_ms");
    w.Int64(*e.latency_ms);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

void CallAudit::write(const AuditEntry& entry, int64_t now_ms) const {
  if (sink_) sink_(format(entry, now_ms));
}

}  // namespace fleetmcp::http
