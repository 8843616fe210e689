// Announce acceptance and refusals against a real mosquitto with fleetmcp_plugin.so (docs/protocol.md §5):
// a node announces, then publishes over thirty broken or hostile manifests; each must be refused
// with its expected code on $devices/<id>/rejected, with the etag, while the retained announce
// an agent sees stays the last accepted one.
//
//   plugin_announce_cases --pki DIR --tls-port P --plain-port Q --node ID --other ID
//                         --revoked ID --agent-token T
#include <functional>
#include <thread>

#include "common/crypto/jcs.h"
#include "common/base/json.h"
#include "tests/support/fleet_test_env.h"

using namespace fleetmcp;
using namespace fleetmcp::testing;
using namespace std::chrono_literals;

namespace {

struct Case {
  std::string name;
  std::string expected_code;
  std::function<std::string()> payload;
  std::string topic_node;  // empty: the node's own announce topic
  bool retain = true;
};

// Edits the JSON of a signed manifest without re-signing it.
std::string edited(const std::string& signed_manifest, const std::function<void(json::Document&)>& edit) {
  json::Document doc = json::parse_strict(signed_manifest).value();
  edit(doc);
  return jcs::canonicalize(doc);
}

// Builds, edits, then signs: a well-signed manifest that breaks a rule.
std::string signed_after(const NodeBundle& node, ManifestContent content,
                         const std::function<void(json::Document&)>& edit) {
  json::Document doc = build_manifest(content);
  edit(doc);
  return sign_manifest(doc, node.key).value();
}

void set_string(json::Document& doc, json::Value& slot, const std::string& text) {
  slot.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), doc.GetAllocator());
}

class AnnounceCases {
 public:
  explicit AnnounceCases(const ToolArgs& args)
      : broker_(Broker::from(args)),
        node_(load_bundle(args.require("pki"), args.require("node"))),
        other_(load_bundle(args.require("pki"), args.require("other"))),
        revoked_(load_bundle(args.require("pki"), args.require("revoked"))),
        agent_token_(args.require("agent-token")) {}

  int run() {
    const int64_t now = now_ms();
    const std::string first = sign(node_, example_manifest(node_, now - 120'000));
    accepted_ = sign(node_, example_manifest(node_, now - 60'000));
    client_ = std::make_unique<MqttTestClient>(broker_.node(node_));
    if (client_->connect() != 0) throw std::runtime_error("the node cannot connect");
    client_->subscribe(devices_topic(node_.node_id, "rejected"), 1);
    accept("a first manifest", first);
    accept("a newer manifest replaces it", accepted_);
    accept("re-announcing a known etag", accepted_);
    for (const Case& c : cases(now, first)) refuse(c);
    refuse_will();
    refuse_revoked();
    return tap_.finish();
  }

 private:
  std::string retained_announce() {
    MqttTestClient agent(broker_.agent("claude", agent_token_));
    if (agent.connect() != 0) return "agent cannot connect";
    agent.subscribe(devices_topic(node_.node_id, "announce"), 1);
    const auto got = agent.wait_for(devices_topic(node_.node_id, "announce"), 2000ms);
    return got ? got->payload : "nothing retained";
  }

  void accept(const std::string& what, const std::string& manifest) {
    const int reason = client_->publish(devices_topic(node_.node_id, "announce"), manifest, 1, true);
    const auto rejected = client_->wait_for(devices_topic(node_.node_id, "rejected"), 300ms);
    // PUBACK 0 or 0x10 ("no matching subscribers", also a success).
    tap_.check((reason == 0 || reason == 0x10) && !rejected && retained_announce() == manifest, "accepted: " + what);
  }

  static std::string code_and_etag(const Received& rejected) {
    const json::Document doc = json::parse_strict(rejected.payload).value();
    const auto etag = json::get_string(doc, "etag").value_or("");
    if (etag.size() != 64) return "no etag";
    return std::string(json::get_string(doc, "code").value_or("no code"));
  }

  void refuse(const Case& c) {
    const std::string target = c.topic_node.empty() ? node_.node_id : c.topic_node;
    const int reason = client_->publish(devices_topic(target, "announce"), c.payload(), 1, c.retain);
    const auto rejected = client_->wait_for(devices_topic(node_.node_id, "rejected"), 3000ms);
    const std::string code = rejected ? code_and_etag(*rejected) : "no rejected message";
    const bool kept = retained_announce() == accepted_;
    tap_.check(reason == 0x87 && code == c.expected_code && kept,
               "refused: " + c.name + " -> " + code + (kept ? "" : " (retained announce changed!)") +
                   (reason == 0x87 ? "" : " (PUBACK " + std::to_string(reason) + ")"));
  }

  std::vector<Case> cases(int64_t now, const std::string& older) {
    const NodeBundle& n = node_;
    const NodeBundle& o = other_;
    auto fresh = [&n, now](int64_t delta = 0, int64_t ttl = 3'600'000) { return example_manifest(n, now + delta, ttl); };
    const std::string good = sign(n, fresh(1));
    std::vector<Case> list = {
        {"tampered capability after signing", "E_ATTESTATION_FAILED",
         [=] { return edited(good, [](json::Document& d) { d["capabilities"][0]["constraints"]["rate_limit_rps"].SetInt(20); }); }},
        {"tampered issued_at after signing", "E_ATTESTATION_FAILED",
         [=] { return edited(good, [now](json::Document& d) { d["issued_at_ms"].SetInt64(now + 5); }); }},
        {"signature bytes altered", "E_ATTESTATION_FAILED",
         [=] {
           return edited(good, [](json::Document& d) {
             std::string sig = d["node_attestation"]["sig"].GetString();
             sig[10] = sig[10] == 'A' ? 'B' : 'A';
             set_string(d, d["node_attestation"]["sig"], sig);
           });
         }},
        {"signed with another node's key", "E_ATTESTATION_FAILED", [=] { return sign(o, fresh(2)); }},
        {"kid of another node's certificate", "E_ATTESTATION_FAILED",
         [=] {
           auto c = fresh(3);
           c.kid = o.certificate.thumbprint();
           return sign(o, c);
         }},
        {"payload_hash that does not recompute", "E_ATTESTATION_FAILED",
         [=] { return edited(good, [](json::Document& d) { set_string(d, d["node_attestation"]["payload_hash"], std::string(64, '0')); }); }},
        {"node_id of another node", "E_ATTESTATION_FAILED",
         [=] {
           auto c = fresh(4);
           c.node_id = o.node_id;
           return sign(n, c);
         }},
        {"published on another node's topic", "E_ATTESTATION_FAILED", [=] { return good; }, o.node_id},
        {"TTL over 24 h", "E_MANIFEST_INVALID", [=] { return sign(n, fresh(5, 86'400'001)); }},
        {"expires before it is issued", "E_MANIFEST_INVALID",
         [=] {
           auto c = fresh(6);
           c.expires_at_ms = c.issued_at_ms - 1;
           return sign(n, c);
         }},
        {"already expired", "E_MANIFEST_INVALID", [=] { return sign(n, fresh(-7'200'000, 3'600'000)); }},
        {"issued_at in the future", "E_MANIFEST_INVALID", [=] { return sign(n, fresh(300'000)); }},
        {"replay of an older accepted manifest", "E_MANIFEST_INVALID", [=] { return older; }},
        {"unknown kind", "E_KIND_UNSUPPORTED",
         [=] { return signed_after(n, fresh(8), [](json::Document& d) { d["capabilities"][0]["kind"].SetString("gpio.magic"); }); }},
        {"clamp: echo not read_only", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(9), [](json::Document& d) { d["capabilities"][0]["safety_class"].SetString("reversible"); }); }},
        {"clamp: echo deadline over 5000 ms", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(10), [](json::Document& d) { d["capabilities"][0]["constraints"]["deadline_ms_default"].SetInt(6000); }); }},
        {"clamp: echo rate over 50/s", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(11), [](json::Document& d) { d["capabilities"][0]["constraints"]["rate_limit_rps"].SetInt(60); }); }},
        {"clamp: metrics verb set", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(12), [](json::Document& d) { d["capabilities"][1]["verbs"][0].SetString("set"); }); }},
        {"clamp: echo verb snapshot", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(13), [](json::Document& d) { d["capabilities"][0]["verbs"][0].SetString("snapshot"); }); }},
        {"over 64 KiB", "E_MANIFEST_INVALID",
         [=] { return good.substr(0, good.size() - 1) + ",\"pad\":\"" + std::string(70'000, 'x') + "\"}"; }},
        {"duplicate keys", "E_MANIFEST_INVALID",
         [=] { return "{\"node_id\":\"" + n.node_id + "\"," + good.substr(1); }},
        {"invalid UTF-8", "E_MANIFEST_INVALID",
         [=] { return good.substr(0, good.size() - 1) + ",\"x\":\"\xC3\x28\"}"; }},
        {"not JSON", "E_MANIFEST_INVALID", [] { return std::string("manifest, honest"); }},
        {"a JSON array", "E_MANIFEST_INVALID", [=] { return "[" + good + "]"; }},
        {"trailing bytes after the object", "E_MANIFEST_INVALID", [=] { return good + " {}"; }},
        {"manifest_version 1.0.0", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(14), [](json::Document& d) { d["manifest_version"].SetString("1.0.0"); }); }},
        {"expires_at_ms missing", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(15), [](json::Document& d) { d.RemoveMember("expires_at_ms"); }); }},
        {"an extra top-level field", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(16), [](json::Document& d) { d.AddMember("debug", true, d.GetAllocator()); }); }},
        {"cap_id with capitals", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(17), [](json::Document& d) { d["capabilities"][0]["cap_id"].SetString("Echo"); }); }},
        {"alg RS256", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(18), [](json::Document& d) { d["node_attestation"]["alg"].SetString("RS256"); }); }},
        {"no capabilities", "E_MANIFEST_INVALID",
         [=] { return signed_after(n, fresh(19), [](json::Document& d) { d["capabilities"].Clear(); }); }},
        {"nesting 40 deep", "E_MANIFEST_INVALID",
         [=] { return good.substr(0, good.size() - 1) + ",\"x\":" + std::string(40, '[') + std::string(40, ']') + "}"; }},
        {"hw_fingerprint of other hardware", "E_ATTESTATION_FAILED",
         [=] {
           auto c = fresh(20);
           c.hw_sources = {{"machine_id", "a-cloned-sd-card"}};
           return sign(n, c);
         }},
        {"not retained", "E_MANIFEST_INVALID", [=] { return sign(n, fresh(21)); }, "", false},
    };
    return list;
  }

  // A Will on the announce topic (docs/protocol.md D6). The client is gone when its Will is refused, so
  // it uses a persistent session and collects the explanation when it comes back.
  void refuse_will() {
    client_.reset();
    {
      MqttTestClient with_will(broker_.node(node_, Received{devices_topic(node_.node_id, "announce"), accepted_, true},
                                            /*clean=*/false));
      with_will.connect();
      with_will.subscribe(devices_topic(node_.node_id, "rejected"), 1);
      with_will.disconnect(/*send_will=*/true);
    }
    std::this_thread::sleep_for(300ms);
    MqttTestClient back(broker_.node(node_, std::nullopt, /*clean=*/false));
    back.connect();
    const auto rejected = back.wait_for(devices_topic(node_.node_id, "rejected"), 3000ms);
    const std::string code = rejected ? code_and_etag(*rejected) : "no rejected message";
    tap_.check(code == "E_MANIFEST_INVALID" && retained_announce() == accepted_,
               "refused: a Will on the announce topic -> " + code);
    back.disconnect();
    MqttTestClient clean(broker_.node(node_));  // leave no persistent session behind
    clean.connect();
  }

  void refuse_revoked() {
    MqttTestClient revoked(broker_.node(revoked_));
    revoked.connect();
    const int reason = revoked.publish(devices_topic(revoked_.node_id, "announce"),
                                       sign(revoked_, example_manifest(revoked_, now_ms())), 1, true);
    const auto rejected = revoked.wait_for(devices_topic(revoked_.node_id, "rejected"), 3000ms);
    const std::string code = rejected ? code_and_etag(*rejected) : "no rejected message";
    tap_.check(reason == 0x87 && code == "E_ATTESTATION_FAILED", "refused: a revoked node's announce -> " + code);
    tap_.check(revoked.wait_disconnected(3000ms), "the revoked node is disconnected");
  }

  Broker broker_;
  NodeBundle node_, other_, revoked_;
  std::string agent_token_, accepted_;
  std::unique_ptr<MqttTestClient> client_;
  Tap tap_;
};

}  // namespace

int main(int argc, char** argv) { return run_program("plugin_announce_cases", argc, argv, [](const ToolArgs& args) { return AnnounceCases(args).run(); }); }
