#include "broker_plugin/base/plugin_counters.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp::plugin {

void PluginCounters::count_refusal(ErrorCode code) {
  bump(announces_refused);
  const auto index = static_cast<size_t>(code);
  if (index < announces_refused_by_code.size()) bump(announces_refused_by_code[index]);
}

std::string PluginCounters::to_json() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto put = [&w](const char* key, const Counter& c) {
    w.Key(key);
    w.Uint64(c.load(std::memory_order_relaxed));
  };
  w.StartObject();
  put("auth_accepted", auth_accepted);
  put("auth_refused", auth_refused);
  put("acl_denied_read", acl_denied_read);
  put("acl_denied_write", acl_denied_write);
  put("acl_denied_subscribe", acl_denied_subscribe);
  put("announces_accepted", announces_accepted);
  put("announces_refused", announces_refused);
  put("announce_cache_hits", announce_cache_hits);
  put("deregistrations", deregistrations);
  put("restored_verified", restored_verified);
  put("restored_cleared", restored_cleared);
  put("manifests_expired", manifests_expired);
  put("nodes_revoked", nodes_revoked);
  put("clients_kicked", clients_kicked);
  put("calls_submitted", calls_submitted);
  put("calls_ok", calls_ok);
  put("calls_failed", calls_failed);
  put("calls_timed_out", calls_timed_out);
  put("late_acks", late_acks);
  put("acks_malformed", acks_malformed);
  put("acks_unmatched", acks_unmatched);
  put("bridged_announces", bridged_announces);
  put("bridged_refused", bridged_refused);
  put("bridged_dropped", bridged_dropped);
  put("relayed_cmds", relayed_cmds);
  put("audit_lines_throttled", audit_lines_throttled);
  w.Key("announces_refused_by_code");
  w.StartObject();
  for (size_t i = 0; i < announces_refused_by_code.size(); ++i) {
    const uint64_t n = announces_refused_by_code[i].load(std::memory_order_relaxed);
    if (n == 0) continue;
    const auto name = error_code_name(static_cast<ErrorCode>(i));
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    w.Uint64(n);
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::vector<std::pair<std::string_view, uint64_t>> PluginCounters::mqtt_refusals() const {
  const auto n = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  return {{"connect", n(auth_refused)},
          {"publish", n(acl_denied_write)},
          {"subscribe", n(acl_denied_subscribe)},
          {"read", n(acl_denied_read)},
          {"announce", n(announces_refused)},
          {"cmd_ack_malformed", n(acks_malformed)},
          {"cmd_ack_unmatched", n(acks_unmatched)},
          {"cmd_ack_late", n(late_acks)},
          {"bridged_status", n(bridged_dropped)}};
}

}  // namespace fleetmcp::plugin
