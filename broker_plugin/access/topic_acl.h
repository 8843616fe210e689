// The topic policy: docs/protocol.md §3 as data (acl/fleetmcp.acl), deny by default. Rules are indexed by
// (principal kind, access) so a READ, which runs once per delivery, scans only the few rules
// that could apply and asks the node registry at most one hash lookup.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/access/acl_rule.h"

namespace fleetmcp::plugin {

// What a rule's node conditions may ask about the node a topic names.
class NodeFacts {
 public:
  virtual ~NodeFacts() = default;
  virtual std::optional<std::string_view> tenant_of(std::string_view node_id) const = 0;
  // The node's manifest is verified (in this broker run) and not expired.
  virtual bool manifest_fresh(std::string_view node_id) const = 0;
};

struct AclQuery {
  const Principal& who;
  AclAccess access;
  std::string_view topic;  // a topic, or a subscription filter for kAclSubscribe
  bool retain = false;
  bool is_will = false;
  bool payload_empty = false;
};

// Why a request was refused: the reason of the first rule whose pattern matched, else kNoRule.
enum class AclRefusal { kNone, kNoRule, kScope, kTenant, kStale, kRetain, kWill };
std::string_view acl_refusal_name(AclRefusal refusal);

struct AclVerdict {
  bool allowed = false;
  AclRefusal refusal = AclRefusal::kNoRule;
  const AclRule* rule = nullptr;  // the allowing rule, or the first matching one that refused
};

class TopicAcl {
 public:
  // E_BAD_REQUEST naming file and line.
  static Result<TopicAcl> load(const std::string& path);
  static Result<TopicAcl> parse(std::string_view text, std::string_view file_name);

  AclVerdict evaluate(const AclQuery& query, const NodeFacts& facts) const;
  size_t size() const { return rules_.size(); }

 private:
  static Result<TopicAcl> from_entries(const std::vector<ConfigEntry>& entries);
  static size_t slot(PrincipalKind who, AclAccess access);
  AclRefusal check_conditions(const AclRule& rule, const AclQuery& query, const NodeFacts& facts) const;

  std::vector<AclRule> rules_;
  std::array<std::vector<size_t>, kPrincipalKinds * 3> index_;  // (principal, read|publish|subscribe) -> rules
};

}  // namespace fleetmcp::plugin
