// Retained announces and status messages mosquitto restored from persistence before the plugin
// could check them (docs/platform-notes.md §M1), met in check_retain_source's WRITE check (any
// subscriber's delivery) and in the waker's scan. An announce is re-verified against the
// certificate the state file remembers for its node; one nobody can vouch for (an unknown node, a
// revoked or expired certificate, tampered bytes, another publisher) is cleared and audited.
// Broker thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "broker_plugin/announces/announce_verifier.h"
#include "broker_plugin/announces/manifest_store.h"
#include "broker_plugin/announces/node_registry.h"
#include "broker_plugin/base/audit_trail.h"
#include "broker_plugin/base/broker_port.h"
#include "broker_plugin/base/plugin_counters.h"

namespace fleetmcp::plugin {

class RestoredAnnounces {
 public:
  RestoredAnnounces(NodeRegistry& registry, AnnounceVerifier& verifier, ManifestStore& store, NodeStatus& status,
                    const Certificate& ca, BrokerPort& broker, const PluginClock& clock, AuditTrail& audit,
                    PluginCounters& counters);

  // check_retain_source's answer for a $devices/ topic: may the message's original publisher
  // still have written it?
  Verdict check_retain_source(const ClientView& source, std::string_view topic, std::string_view payload);
  // A retained message the waker's scan received.
  void scanned(std::string_view topic, std::string_view payload, int64_t now_ms);
  // The tick: the clears queued last turn have been applied by now.
  void start_turn() { clearing_.clear(); }

 private:
  bool verify(std::string_view node_id, std::string_view payload);
  void clear(std::string_view node_id, const ErrorEnvelope& why);

  NodeRegistry& registry_;
  AnnounceVerifier& verifier_;
  ManifestStore& store_;
  NodeStatus& status_;
  const Certificate& ca_;
  BrokerPort& broker_;
  const PluginClock& clock_;
  AuditTrail& audit_;
  PluginCounters& counters_;
  std::set<std::string, std::less<>> clearing_;  // announces being cleared this loop turn
};

}  // namespace fleetmcp::plugin
