// Every node the plugin knows: tenant, certificate, last accepted manifest, replay and hardware
// history, live session and published status. Drives $devices/<id>/status, the expiry sweep
// and call routing. Broker thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "broker_plugin/announces/manifest_summary.h"
#include "common/base/string_map.h"
#include "common/crypto/x509.h"
#include "common/protocol/node_state.h"

namespace fleetmcp::plugin {

struct HwPin {
  std::string fingerprint;
  std::string kid;  // the certificate it was first seen with: a new certificate is a re-enrolment
};

struct NodeRecord {
  std::string node_id, tenant;
  std::shared_ptr<const Certificate> certificate;
  // Last accepted manifest, kept after it expires so status can still name its etag.
  std::shared_ptr<const ManifestSummary> manifest;
  bool manifest_verified = false;  // accepted or re-verified in this broker run
  bool manifest_expired = false;   // the sweep cleared it
  std::optional<int64_t> last_issued_at_ms;  // docs/protocol.md §5 check 8
  std::optional<HwPin> hw_pin;               // check 9
  const void* session = nullptr;             // live connection, if any
  bool revoked = false;

  // A node connected to another broker, known over a bridge (docs/protocol.md §12): its manifest was
  // verified here from its enrolled certificate, and its liveness is what the owning plugin's
  // status says. The owner publishes that status; this plugin never does.
  bool remote = false;
  bool remote_online = false;
  const void* remote_via = nullptr;  // the bridge connection it came over

  bool live() const { return session != nullptr || (remote && remote_online); }

  // What was last published on $devices/<id>/status.
  std::optional<NodeState> published_state;
  int64_t since_ms = 0;
  std::string published_etag;

  NodeState state() const;
  // The manifest may be shown and called: verified in this run and not expired.
  bool manifest_fresh(int64_t now_ms) const {
    return manifest && manifest_verified && !manifest_expired && now_ms < manifest->expires_at_ms;
  }
};

// The facts docs/protocol.md §6.1's checks take from what this plugin knows of a node: its replay
// high-water mark and its hardware pin, which holds only for the certificate it was made with (a
// new certificate is a re-enrolment). `node` may be null (a node never seen); `cert` must already be
// known to chain to the fleet CA (client_identity at connect, or the caller, for restored and
// bridged announces).
AnnounceContext announce_facts(const NodeRecord* node, std::string_view node_id, const Certificate* cert,
                               int64_t now_ms);

class NodeRegistry {
 public:
  NodeRecord* find(std::string_view node_id);
  const NodeRecord* find(std::string_view node_id) const;
  NodeRecord& get_or_create(std::string_view node_id, std::string_view tenant);
  void for_each(const std::function<void(NodeRecord&)>& visit);
  void for_each(const std::function<void(const NodeRecord&)>& visit) const;
  size_t size() const { return nodes_.size(); }

  // Expiry index of current manifests, swept on every tick.
  void schedule_expiry(const NodeRecord& node);
  // Nodes whose current manifest's expires_at_ms <= now, removed from the index.
  std::vector<NodeRecord*> take_expired(int64_t now_ms);

 private:
  StringMap<NodeRecord> nodes_;
  std::set<std::pair<int64_t, std::string>> expiry_;  // (expires_at_ms, node_id)
  StringMap<int64_t> scheduled_;
};

}  // namespace fleetmcp::plugin
