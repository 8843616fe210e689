#include "broker_plugin/access/acl_rule.h"

#include "common/base/text.h"
#include "common/protocol/topics.h"

namespace fleetmcp::plugin {
namespace {

// Walks the '/'-separated levels of a topic without allocating.
class LevelCursor {
 public:
  explicit LevelCursor(std::string_view text) : rest_(text) {}
  bool done() const { return done_; }
  std::string_view next() {
    const size_t slash = rest_.find('/');
    const std::string_view level = rest_.substr(0, slash);
    if (slash == std::string_view::npos) {
      done_ = true;
    } else {
      rest_ = rest_.substr(slash + 1);
    }
    return level;
  }

 private:
  std::string_view rest_;
  bool done_ = false;
};

Result<uint8_t> parse_access(const ConfigEntry& entry, std::string_view list) {
  uint8_t access = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (name == "publish") {
      access |= kAclWrite;
    } else if (name == "subscribe") {
      access |= kAclSubscribe;
    } else if (name == "read") {
      access |= kAclRead;
    } else {
      return entry.error("unknown access '" + std::string(name) + "' (publish, subscribe, read)");
    }
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  if (access == 0) return entry.error("no access given (publish, subscribe, read)");
  return access;
}

Result<std::vector<PatternLevel>> parse_pattern(const ConfigEntry& entry, std::string_view pattern) {
  std::vector<PatternLevel> levels;
  LevelCursor cursor(pattern);
  while (!cursor.done()) {
    const std::string_view text = cursor.next();
    if (!levels.empty() && levels.back().kind == PatternLevel::Kind::kHash) return entry.error("'#' must be the last level");
    PatternLevel level;
    if (text == "+") {
      level.kind = PatternLevel::Kind::kPlus;
    } else if (text == "#") {
      level.kind = PatternLevel::Kind::kHash;
    } else if (text == "{node_id}") {
      level.kind = PatternLevel::Kind::kNodeIdVariable;
    } else if (text.find_first_of("+#{}") != std::string_view::npos) {
      return entry.error("level '" + std::string(text) + "' mixes a wildcard or variable with text");
    } else {
      level.text = text;
    }
    levels.push_back(std::move(level));
  }
  return levels;
}

// The node named by a $devices/ pattern sits at level 1; node conditions need it to be a wildcard
// or the {node_id} variable.
bool names_a_node(const std::vector<PatternLevel>& levels) {
  return levels.size() >= 2 && levels[0].kind == PatternLevel::Kind::kLiteral && levels[0].text == kDevicesRoot &&
         (levels[1].kind == PatternLevel::Kind::kPlus || levels[1].kind == PatternLevel::Kind::kNodeIdVariable);
}

Result<bool> parse_yes_no(const ConfigEntry& entry, std::string_view key, std::string_view value) {
  if (value == "yes") return true;
  if (value == "no") return false;
  return entry.error(std::string(key) + " takes yes or no");
}

Status parse_condition(const ConfigEntry& entry, std::string_view word, AclRule& rule) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos) return entry.error("condition '" + std::string(word) + "' is not key=value");
  const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
  if (key == "retain" || key == "will") {
    const auto yes = parse_yes_no(entry, key, value);
    if (!yes) return yes.error();
    if (key == "retain") rule.retain = *yes;
    else rule.will_allowed = *yes;
  } else if (key == "attest" && value == "manifest") {
    rule.attest_manifest = true;
  } else if (key == "fresh" && value == "manifest") {
    rule.fresh_manifest = true;
  } else if (key == "scope") {
    const auto bit = scope_bit(value);
    if (!bit) return entry.error("unknown scope '" + std::string(value) + "'");
    rule.scopes |= *bit;
  } else if (key == "node_tenant") {
    if (value.empty()) return entry.error("node_tenant needs {tenant} or a tenant name");
    rule.tenant_rule = value == "{tenant}" ? AclRule::TenantRule::kClientTenant : AclRule::TenantRule::kLiteral;
    if (value != "{tenant}") rule.tenant_literal = value;
  } else {
    return entry.error("unknown condition '" + std::string(word) + "'");
  }
  return {};
}

Status check_consistency(const ConfigEntry& entry, const AclRule& rule) {
  const bool publishes = (rule.access & kAclWrite) != 0;
  if ((rule.retain || !rule.will_allowed || rule.attest_manifest) && !publishes) {
    return entry.error("retain=, will= and attest= apply to publish only");
  }
  if (rule.needs_node_facts() && !names_a_node(rule.levels)) {
    return entry.error("node_tenant= and fresh= need a pattern $devices/+/... or $devices/{node_id}/...");
  }
  if (rule.scopes != 0 && rule.who != PrincipalKind::kAgent) return entry.error("scope= applies to agents only");
  if (rule.tenant_rule == AclRule::TenantRule::kClientTenant &&
      (rule.who == PrincipalKind::kPlugin || rule.who == PrincipalKind::kBridge)) {
    return entry.error("the plugin and bridges have no tenant (a bridge carries every tenant)");
  }
  return {};
}

bool literal_matches(const PatternLevel& p, std::string_view level, const Principal& who) {
  switch (p.kind) {
    case PatternLevel::Kind::kLiteral: return p.text == level;
    case PatternLevel::Kind::kPlus: return true;
    case PatternLevel::Kind::kHash: return true;
    case PatternLevel::Kind::kNodeIdVariable: return who.kind == PrincipalKind::kNode && who.name == level;
  }
  return false;
}

}  // namespace

Result<AclRule> parse_acl_rule(const ConfigEntry& entry) {
  const auto words = split_words(entry.value);
  if (words.size() < 3) return entry.error("expected '<principal> <access> <topic pattern> [conditions]'");
  AclRule rule;
  rule.origin = entry.file + ":" + std::to_string(entry.line);
  const auto who = principal_kind_from_name(words[0]);
  if (!who) return entry.error("unknown principal '" + std::string(words[0]) + "' (node, agent, plugin, bridge)");
  rule.who = *who;
  auto access = parse_access(entry, words[1]);
  if (!access) return access.error();
  rule.access = *access;
  auto levels = parse_pattern(entry, words[2]);
  if (!levels) return std::move(levels).error();
  rule.levels = std::move(levels).value();
  for (size_t i = 3; i < words.size(); ++i) {
    if (Status condition = parse_condition(entry, words[i], rule); !condition) return std::move(condition).error();
  }
  if (Status consistent = check_consistency(entry, rule); !consistent) return std::move(consistent).error();
  return rule;
}

bool AclRule::matches_topic(std::string_view topic, const Principal& who) const {
  LevelCursor cursor(topic);
  for (const PatternLevel& p : levels) {
    if (p.kind == PatternLevel::Kind::kHash) return true;
    if (cursor.done()) return false;
    if (!literal_matches(p, cursor.next(), who)) return false;
  }
  return cursor.done();
}

bool AclRule::covers_filter(std::string_view filter, const Principal& who) const {
  LevelCursor cursor(filter);
  for (const PatternLevel& p : levels) {
    if (p.kind == PatternLevel::Kind::kHash) return true;
    if (cursor.done()) return false;
    const std::string_view level = cursor.next();
    if (level == "#") return false;  // only a pattern '#' covers a filter '#'
    if (level == "+") {
      if (p.kind != PatternLevel::Kind::kPlus) return false;
      continue;
    }
    if (!literal_matches(p, level, who)) return false;
  }
  return cursor.done();
}

}  // namespace fleetmcp::plugin
