#include "broker_plugin/access/topic_acl.h"

#include "common/protocol/topics.h"
#include "common/base/error.h"

namespace fleetmcp::plugin {
namespace {

constexpr std::array<AclAccess, 3> kIndexedAccess{kAclRead, kAclWrite, kAclSubscribe};

size_t access_index(AclAccess access) {
  switch (access) {
    case kAclRead: return 0;
    case kAclWrite: return 1;
    default: return 2;
  }
}

// The node a $devices/ topic names; node conditions only ever apply to such topics.
std::string_view topic_node(std::string_view topic) {
  const auto t = parse_devices_topic(topic);
  return t ? t->node_id : std::string_view{};
}

}  // namespace

std::string_view acl_refusal_name(AclRefusal refusal) {
  switch (refusal) {
    case AclRefusal::kNone: return "allowed";
    case AclRefusal::kNoRule: return "no rule allows it";
    case AclRefusal::kScope: return "token scope missing";
    case AclRefusal::kTenant: return "node of another tenant";
    case AclRefusal::kStale: return "manifest not verified or expired";
    case AclRefusal::kRetain: return "retain flag not allowed";
    case AclRefusal::kWill: return "not allowed as a Will";
  }
  return "denied";
}

Result<TopicAcl> TopicAcl::load(const std::string& path) {
  auto entries = read_config_file(path);
  if (!entries) return std::move(entries).error();
  return from_entries(*entries);
}

Result<TopicAcl> TopicAcl::parse(std::string_view text, std::string_view file_name) {
  auto entries = parse_config_text(text, file_name);
  if (!entries) return std::move(entries).error();
  return from_entries(*entries);
}

Result<TopicAcl> TopicAcl::from_entries(const std::vector<ConfigEntry>& entries) {
  TopicAcl acl;
  for (const ConfigEntry& entry : entries) {
    if (entry.key != "allow") return entry.error("unknown key (the policy has only 'allow = ...' lines)");
    auto rule = parse_acl_rule(entry);
    if (!rule) return std::move(rule).error();
    acl.rules_.push_back(std::move(rule).value());
  }
  for (size_t i = 0; i < acl.rules_.size(); ++i) {
    for (AclAccess access : kIndexedAccess) {
      if (acl.rules_[i].access & access) acl.index_[slot(acl.rules_[i].who, access)].push_back(i);
    }
  }
  return acl;
}

size_t TopicAcl::slot(PrincipalKind who, AclAccess access) {
  return static_cast<size_t>(who) * 3 + access_index(access);
}

AclVerdict TopicAcl::evaluate(const AclQuery& query, const NodeFacts& facts) const {
  AclVerdict verdict;
  if (query.access != kAclRead && query.access != kAclWrite && query.access != kAclSubscribe) return verdict;
  for (size_t i : index_[slot(query.who.kind, query.access)]) {
    const AclRule& rule = rules_[i];
    const bool matched = query.access == kAclSubscribe ? rule.covers_filter(query.topic, query.who)
                                                       : rule.matches_topic(query.topic, query.who);
    if (!matched) continue;
    const AclRefusal refusal = check_conditions(rule, query, facts);
    if (refusal == AclRefusal::kNone) return {true, AclRefusal::kNone, &rule};
    if (verdict.rule == nullptr) verdict = {false, refusal, &rule};
  }
  return verdict;
}

AclRefusal TopicAcl::check_conditions(const AclRule& rule, const AclQuery& query, const NodeFacts& facts) const {
  if (!query.who.has_scopes(rule.scopes)) return AclRefusal::kScope;
  if (query.access == kAclWrite) {
    if (rule.retain && *rule.retain != query.retain) return AclRefusal::kRetain;
    if (query.is_will && !rule.will_allowed) return AclRefusal::kWill;
    return AclRefusal::kNone;
  }
  // Node conditions are checked per delivery only. At SUBSCRIBE the filter usually names no
  // single node ('+'), and answering for a named one would tell other tenants it exists.
  if (query.access != kAclRead || !rule.needs_node_facts()) return AclRefusal::kNone;
  const std::string_view node = topic_node(query.topic);
  if (rule.tenant_rule != AclRule::TenantRule::kAny) {
    const auto tenant = facts.tenant_of(node);
    const std::string_view wanted =
        rule.tenant_rule == AclRule::TenantRule::kClientTenant ? std::string_view(query.who.tenant) : rule.tenant_literal;
    if (!tenant || *tenant != wanted) return AclRefusal::kTenant;
  }
  if (rule.fresh_manifest && !query.payload_empty && !facts.manifest_fresh(node)) return AclRefusal::kStale;
  return AclRefusal::kNone;
}

}  // namespace fleetmcp::plugin
