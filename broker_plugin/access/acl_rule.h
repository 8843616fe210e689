// One line of the topic policy (acl/fleetmcp.acl, format documented in acl/README.md):
//
//   allow = <principal> <access>[,<access>…] <topic pattern> [<condition> …]
//
// principal: node | agent | plugin | bridge. access: publish | subscribe | read. Pattern levels are
// literals, '+', a final '#', or the variable {node_id} (the connected node's own node_id; a rule
// using it never matches agents or the plugin). Conditions:
//   retain=yes|no          publish: the retain flag must be set / clear
//   will=no                publish: refuse the message when it is the client's Will
//   attest=manifest        publish: the payload must pass docs/protocol.md §5 (empty payload = deregister)
//   scope=<scope>          the agent token must carry this scope (repeatable)
//   node_tenant={tenant}   read: the node named by the topic belongs to the client's tenant
//   node_tenant=<tenant>   read: … belongs to that literal tenant
//   fresh=manifest         read: a non-empty announce is delivered only while it is the node's
//                          verified, unexpired manifest
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/access/principal.h"
#include "common/base/config_file.h"

namespace fleetmcp::plugin {

// The values of mosquitto's MOSQ_ACL_* constants, so callbacks pass them straight through.
enum AclAccess : uint8_t { kAclRead = 1, kAclWrite = 2, kAclSubscribe = 4, kAclUnsubscribe = 8 };

struct PatternLevel {
  enum class Kind : uint8_t { kLiteral, kPlus, kHash, kNodeIdVariable };
  Kind kind = Kind::kLiteral;
  std::string text;  // literals only
};

struct AclRule {
  enum class TenantRule : uint8_t { kAny, kClientTenant, kLiteral };

  PrincipalKind who = PrincipalKind::kAgent;
  uint8_t access = 0;  // AclAccess bits
  std::vector<PatternLevel> levels;
  std::optional<bool> retain;
  bool will_allowed = true;
  bool attest_manifest = false;
  uint32_t scopes = 0;
  TenantRule tenant_rule = TenantRule::kAny;
  std::string tenant_literal;
  bool fresh_manifest = false;
  std::string origin;  // "file:line", for logs

  bool needs_node_facts() const { return tenant_rule != TenantRule::kAny || fresh_manifest; }
  // A concrete topic (publish, read) against the pattern.
  bool matches_topic(std::string_view topic, const Principal& who) const;
  // A subscription filter is covered when every topic it can match is matched by the pattern:
  // '+' in the filter needs '+' or '#' in the pattern, '#' in the filter needs '#'.
  bool covers_filter(std::string_view filter, const Principal& who) const;
};

// E_BAD_REQUEST "<file>:<line>: allow: <what>" on any malformed part.
Result<AclRule> parse_acl_rule(const ConfigEntry& entry);

}  // namespace fleetmcp::plugin
