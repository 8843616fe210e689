#include "broker_plugin/access/client_id_claims.h"

#include <algorithm>

namespace fleetmcp::plugin {
namespace {

void erase_id(std::map<ClaimOwner, std::vector<std::string>>& lists, const ClaimOwner& owner, std::string_view id) {
  const auto list = lists.find(owner);
  if (list == lists.end()) return;
  std::erase(list->second, id);
  if (list->second.empty()) lists.erase(list);
}

}  // namespace

std::optional<ClaimHolder> ClientIdClaims::held_by_another(std::string_view id, const Principal& who,
                                                           int64_t now_ms) const {
  const auto it = claims_.find(id);
  if (it == claims_.end()) return std::nullopt;
  const Claim& claim = it->second;
  if (expired(claim, now_ms)) return std::nullopt;  // mosquitto dropped it
  if (claim.owner == ClaimOwner::of(who)) return std::nullopt;
  return ClaimHolder{claim.owner, claim.handle != nullptr};
}

bool ClientIdClaims::durable_quota_full(std::string_view id, const Principal& who, int64_t now_ms) {
  const ClaimOwner owner = ClaimOwner::of(who);
  const auto held = durable_by_owner_.find(owner);
  if (held == durable_by_owner_.end()) return max_durable_per_owner_ == 0;
  if (std::ranges::find(held->second, id) != held->second.end()) return false;  // resumes its own session
  if (held->second.size() < max_durable_per_owner_) return false;
  // Sessions mosquitto has dropped by now no longer count (forget_expired runs once a minute).
  std::vector<std::string> gone;
  for (const std::string& kept : held->second) {
    if (expired(claims_.find(kept)->second, now_ms)) gone.push_back(kept);
  }
  if (gone.empty()) return true;
  for (const std::string& kept : gone) forget(kept);
  const auto left = durable_by_owner_.find(owner);
  return left != durable_by_owner_.end() && left->second.size() >= max_durable_per_owner_;
}

void ClientIdClaims::connected(std::string_view id, const Principal& who, const void* handle, bool may_persist,
                               bool durable) {
  auto it = claims_.find(id);
  if (it == claims_.end()) {
    it = claims_.emplace(std::string(id), Claim{}).first;
  } else {
    unlist(id, it->second);  // resumed (or taken after mosquitto dropped it); listed again below
  }
  Claim claim{.owner = ClaimOwner::of(who), .handle = handle, .may_persist = may_persist, .durable = durable};
  if ((durable || it->second.durable) && (durable != it->second.durable || claim.owner != it->second.owner)) {
    ++durable_changes_;
  }
  if (durable) durable_by_owner_[claim.owner].emplace_back(id);
  it->second = std::move(claim);
}

void ClientIdClaims::disconnected(std::string_view id, const void* handle, int64_t now_ms) {
  const auto it = claims_.find(id);
  if (it == claims_.end() || it->second.handle != handle) return;
  if (!it->second.may_persist) {
    forget(id);
    return;
  }
  end(id, it->second, keep_ended_ms_ > 0 ? now_ms + keep_ended_ms_ : kNever);
}

void ClientIdClaims::end(std::string_view id, Claim& claim, int64_t forget_at_ms) {
  claim.handle = nullptr;
  claim.forget_at_ms = forget_at_ms;
  if (claim.durable) return;  // stays on durable_by_owner_, which the quota bounds
  std::vector<std::string>& ended = ended_by_owner_[claim.owner];
  ended.emplace_back(id);
  // `claim` may be the one forgotten here: nothing below touches it.
  if (ended.size() > kMaxEndedPerOwner) forget(std::string(ended.front()));
}

void ClientIdClaims::unlist(std::string_view id, const Claim& claim) {
  if (claim.durable) {
    erase_id(durable_by_owner_, claim.owner, id);
  } else if (claim.handle == nullptr) {
    erase_id(ended_by_owner_, claim.owner, id);
  }
}

void ClientIdClaims::forget(std::string_view id) {
  const auto it = claims_.find(id);
  if (it == claims_.end()) return;
  unlist(id, it->second);
  if (it->second.durable) ++durable_changes_;
  claims_.erase(it);
}

void ClientIdClaims::forget_expired(int64_t now_ms) {
  std::vector<std::string> gone;
  for (const IdsByOwner* lists : {&durable_by_owner_, &ended_by_owner_}) {
    for (const auto& [owner, ids] : *lists) {
      for (const std::string& id : ids) {
        if (expired(claims_.find(id)->second, now_ms)) gone.push_back(id);
      }
    }
  }
  for (const std::string& id : gone) forget(id);
}

std::vector<DurableClaim> ClientIdClaims::durable() const {
  std::vector<DurableClaim> out;
  for (const auto& [id, claim] : claims_) {
    if (claim.durable) out.push_back({id, claim.owner});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.client_id < b.client_id; });
  return out;
}

void ClientIdClaims::restore(const std::vector<DurableClaim>& claims) {
  for (const DurableClaim& c : claims) {
    if (c.client_id.size() > kMaxIdBytes || claims_.contains(c.client_id)) continue;
    Claim& claim = claims_[c.client_id];
    claim.owner = c.owner;
    claim.durable = true;
    durable_by_owner_[c.owner].push_back(c.client_id);
    end(c.client_id, claim, kNever);
  }
}

}  // namespace fleetmcp::plugin
