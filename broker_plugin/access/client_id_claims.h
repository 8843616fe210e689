// Which principal each MQTT client id of an agent or a bridge belongs to (issue 24 item 2).
// mosquitto disconnects whoever holds a client id when another client connects with it, and gives
// a persistent session (MQTT 3.1.1 clean session false, MQTT 5 session expiry), with its
// subscriptions and queued messages, to the next client that connects with its id. So an id is a
// claim: held by the principal (kind, tenant, sub) of the client connected with it, and after that
// client leaves, for as long as mosquitto may keep its session. Another principal may not use it.
//
// How long an ended claim is kept: mosquitto drops a session at the latest
// persistent_client_expiration after it ended (mosquitto.conf, read at start), so a claim is kept
// that long; without that setting, and for the claims restored from the state file (mosquitto
// 2.0.11 never expires a session it restored from persistence), until the owner reconnects.
// Memory stays bounded either way. Durable claims (clean start false: the sessions mosquitto writes
// to its persistence file) are never forgotten while mosquitto may keep their sessions; instead a
// principal may hold at most max_durable_per_owner of them (plugin_opt_max_persistent_sessions_per_
// principal, issue 33 item 4) and Admission refuses a new one past that at CONNECT. Its other ended
// claims (MQTT 5 with clean start, whose session expiry the plugin cannot see,
// docs/platform-notes.md §M6) are at most kMaxEndedPerOwner (the oldest goes first; a principal can
// only give up its own). An id is at most kMaxIdBytes (check_client_id refuses longer ones).
// Broker thread only.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/access/principal.h"
#include "common/base/string_map.h"

namespace fleetmcp::plugin {

struct ClaimOwner {
  PrincipalKind kind = PrincipalKind::kAgent;
  std::string tenant, name;  // the token's tenant and sub

  static ClaimOwner of(const Principal& who) { return {who.kind, who.tenant, who.name}; }
  auto operator<=>(const ClaimOwner&) const = default;
};

struct ClaimHolder {
  ClaimOwner owner;
  bool connected = false;  // else its session may still be kept by mosquitto
};

// A claim that may outlive a broker restart (mosquitto persists sessions with clean start false).
struct DurableClaim {
  std::string client_id;
  ClaimOwner owner;
};

class ClientIdClaims {
 public:
  static constexpr size_t kMaxEndedPerOwner = 128;
  static constexpr size_t kMaxIdBytes = 256;

  // keep_ended_ms: persistent_client_expiration in ms; 0 = no such setting (kept until evicted).
  // max_durable_per_owner: the quota; the plugin's comes from its options.
  explicit ClientIdClaims(int64_t keep_ended_ms = 0, size_t max_durable_per_owner = std::numeric_limits<size_t>::max())
      : keep_ended_ms_(keep_ended_ms), max_durable_per_owner_(max_durable_per_owner) {}

  // The principal `id` belongs to, when it is not `who`: connecting would take its client's
  // connection or its session.
  std::optional<ClaimHolder> held_by_another(std::string_view id, const Principal& who, int64_t now_ms) const;
  // `who` asks for a durable session under `id`, which is not one of its durable claims, and holds
  // max_durable_per_owner() of them already (connected, or ended and maybe kept by mosquitto).
  // Forgets that principal's expired claims first.
  bool durable_quota_full(std::string_view id, const Principal& who, int64_t now_ms);
  size_t max_durable_per_owner() const { return max_durable_per_owner_; }

  // The connection `handle` of `who` now holds `id`. `may_persist`: mosquitto may keep its session
  // after it leaves (anything but MQTT 3.1.1 with clean session); `durable`: also across a broker
  // restart (clean start false, the sessions mosquitto writes to its persistence file).
  void connected(std::string_view id, const Principal& who, const void* handle, bool may_persist, bool durable);
  // That connection left. A later connection of the same principal under the same id (which made
  // mosquitto close this one) keeps the claim as it is.
  void disconnected(std::string_view id, const void* handle, int64_t now_ms);
  // Drops ended claims past their keep time.
  void forget_expired(int64_t now_ms);

  // For the state file, and back: restored claims are ended and kept until their owner returns.
  std::vector<DurableClaim> durable() const;
  void restore(const std::vector<DurableClaim>& claims);
  // Grows whenever durable() would answer differently: the state file is due.
  uint64_t durable_changes() const { return durable_changes_; }

  size_t size() const { return claims_.size(); }

 private:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  struct Claim {
    ClaimOwner owner;
    const void* handle = nullptr;  // the connected client; nullptr once it left
    bool may_persist = true, durable = false;
    int64_t forget_at_ms = kNever;  // for an ended claim
  };

  using IdsByOwner = std::map<ClaimOwner, std::vector<std::string>>;

  void end(std::string_view id, Claim& claim, int64_t forget_at_ms);
  void forget(std::string_view id);
  // Takes `id` off the owner list `claim` is on (durable_by_owner_ or ended_by_owner_), if any.
  void unlist(std::string_view id, const Claim& claim);
  bool expired(const Claim& claim, int64_t now_ms) const { return claim.handle == nullptr && claim.forget_at_ms <= now_ms; }

  const int64_t keep_ended_ms_;
  const size_t max_durable_per_owner_;
  uint64_t durable_changes_ = 0;
  StringMap<Claim> claims_;     // by client id
  IdsByOwner durable_by_owner_;  // their durable ids, connected or ended: at most the quota (plus restored ones)
  IdsByOwner ended_by_owner_;    // their other ended ids, oldest first
};

}  // namespace fleetmcp::plugin
