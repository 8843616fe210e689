// fuzz_acl: the topic policy file (broker_plugin/access/acl_rule.h, topic_acl.h) and topic matching.
// The first line of an input is a topic (or subscription filter); the rest is the policy. Every
// principal kind asks for every access to that topic, as the broker's ACL callback would.
#include <string>

#include "broker_plugin/access/topic_acl.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::plugin;

namespace {

constexpr std::string_view kNode = "01hzx9k3m4p7q8r9s0t1v2w3xy";

// Every node belongs to acme; those whose id starts with '0' have a fresh manifest.
class FixedFacts : public NodeFacts {
 public:
  std::optional<std::string_view> tenant_of(std::string_view node_id) const override {
    if (node_id.empty()) return std::nullopt;
    return std::string_view("acme");
  }
  bool manifest_fresh(std::string_view node_id) const override { return !node_id.empty() && node_id[0] == '0'; }
};

std::vector<Principal> principals() {
  Principal node{PrincipalKind::kNode, std::string(kNode), "acme"};
  Principal agent{PrincipalKind::kAgent, "alice", "acme", kScopeBitDevicesRead | kScopeBitCallReadOnly};
  Principal plugin{PrincipalKind::kPlugin, "fleetmcp-waker", ""};
  return {node, agent, plugin};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Principal> who = principals();
  static const FixedFacts facts;
  const std::string_view text = fuzz::as_text(data, size);
  const size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view topic = text.substr(0, newline);
  fuzz::expect_ok_or_error([&] {
    const TopicAcl acl = TopicAcl::parse(text.substr(newline + 1), "fuzz.acl").value();
    for (const Principal& p : who) {
      for (AclAccess access : {kAclRead, kAclWrite, kAclSubscribe}) {
        for (bool flag : {false, true}) {
          const AclVerdict v = acl.evaluate({p, access, topic, flag, flag, !flag}, facts);
          if (v.allowed && v.rule == nullptr) fuzz::property_failed("allowed without a rule");
          (void)acl_refusal_name(v.refusal);
        }
      }
    }
  });
  return 0;
}
