// The docs/protocol.md §3 ACL matrix against a real mosquitto with fleetmcp_plugin.so: every topic of a
// node × {owner node, other node, agent of the same tenant, agent of another tenant, anonymous}
// × {publish, subscribe, receive, Will}, each cell asserted the way a client sees it (PUBACK and
// SUBACK reason codes, messages received or not, Wills delivered or refused in the audit log).
//
//   plugin_acl_matrix --pki DIR --tls-port P --plain-port Q --owner ID --other ID
//                     --agent-token T --stranger-token T --audit FILE
// The agent tokens carry sub "claude" (tenant of the nodes) and "eve" (another tenant), both with
// devices:read and tools:call:read_only.
#include <array>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "tests/support/fleet_test_env.h"

using namespace fleetmcp;
using namespace fleetmcp::testing;
using namespace std::chrono_literals;

namespace {

enum Who { kOwner, kOther, kAgent, kStranger, kAnonymous, kWhoCount };
constexpr std::array<const char*, kWhoCount> kWhoNames{"owner node", "other node", "agent same tenant",
                                                       "agent other tenant", "anonymous"};
constexpr std::array<const char*, 6> kLeaves{"announce", "status", "telemetry", "cmd", "cmd_ack", "rejected"};
enum Leaf { kAnnounce, kStatus, kTelemetry, kCmd, kCmdAck, kRejected };

// docs/protocol.md §3 as a table: [leaf][who]. Reading is per delivery, so an agent of another tenant may
// subscribe but receives nothing.
constexpr bool kPublish[6][kWhoCount] = {
    {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
// A node reads its own status (since_ms is the plugin clock it times its cmds by, §4.3 step 5).
constexpr bool kSubscribe[6][kWhoCount] = {
    {0, 0, 1, 1, 0}, {1, 0, 1, 1, 0}, {0, 0, 1, 1, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
constexpr bool kReceive[6][kWhoCount] = {
    {0, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
// A Will follows the publish rules, except that no Will is accepted on the announce topic (D6).
constexpr bool kWill[6][kWhoCount] = {
    {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};

constexpr int kNotAuthorised = 0x87;
// PUBACK 0x10 "no matching subscribers" is a success too.
bool accepted(int reason) { return reason == 0 || reason == 0x10; }

class Matrix {
 public:
  explicit Matrix(const ToolArgs& args)
      : broker_(Broker::from(args)),
        owner_(load_bundle(args.require("pki"), args.require("owner"))),
        other_(load_bundle(args.require("pki"), args.require("other"))),
        agent_token_(args.require("agent-token")),
        stranger_token_(args.require("stranger-token")),
        audit_(args.require("audit")) {}

  int run() {
    start_owner();
    subscribe_and_receive_retained();
    receive_live();
    publish_everything();
    wills();
    anonymous();
    return tap_.finish();
  }

 private:
  std::string topic(Leaf leaf) const { return devices_topic(owner_.node_id, kLeaves[leaf]); }
  std::string cell(Who who, const char* action, Leaf leaf, bool expected) const {
    return std::string(kWhoNames[who]) + " " + action + " " + kLeaves[leaf] + ": " + (expected ? "allowed" : "denied");
  }
  std::string sub_name(Who who) const {
    switch (who) {
      case kOwner: return owner_.node_id;
      case kOther: return other_.node_id;
      case kAgent: return "claude";
      case kStranger: return "eve";
      default: return "";
    }
  }
  ClientOptions options(Who who, std::optional<Received> will = std::nullopt) const {
    switch (who) {
      case kOwner: return broker_.node(owner_, std::move(will));
      case kOther: return broker_.node(other_, std::move(will));
      case kAgent: return broker_.agent("claude", agent_token_, std::move(will));
      case kStranger: return broker_.agent("eve", stranger_token_, std::move(will));
      default: {
        ClientOptions o = broker_.anonymous();
        o.will = std::move(will);
        return o;
      }
    }
  }
  std::unique_ptr<MqttTestClient> connected(Who who, std::optional<Received> will = std::nullopt) {
    auto c = std::make_unique<MqttTestClient>(options(who, std::move(will)));
    if (c->connect() != 0) throw std::runtime_error(std::string(kWhoNames[who]) + " cannot connect");
    return c;
  }
  std::string payload_for(Leaf leaf) {
    const std::string now = std::to_string(now_ms());
    switch (leaf) {
      case kAnnounce: return manifest_;
      case kStatus: return R"({"node_id":")" + owner_.node_id + R"(","state":"online","since_ms":)" + now + "}";
      case kTelemetry: return R"({"ts_ms":)" + now + R"(,"node_id":")" + owner_.node_id + R"("})";
      case kCmd:
        return R"({"type":"cmd","msg_id":")" + new_msg_id() + R"(","ts_ms":)" + now +
               R"(,"deadline_ms":2000,"payload":{"tool":"sysecho.)" + owner_.node_id +
               R"(.echo.invoke","arguments":{"message":"x"}}})";
      case kCmdAck:
        return R"({"type":"cmd_ack","msg_id":")" + new_msg_id() + R"(","in_reply_to":")" + new_msg_id() +
               R"(","payload":{"ok":true,"result":{}}})";
      case kRejected: return R"({"code":"E_INTERNAL","message":"x","suggested_fix":"x","etag":"x"})";
    }
    return "{}";
  }
  static bool retained_leaf(Leaf leaf) { return leaf == kAnnounce || leaf == kStatus; }

  void start_owner() {
    manifest_ = sign(owner_, example_manifest(owner_, now_ms()));
    clients_[kOwner] = connected(kOwner);
    tap_.check(accepted(clients_[kOwner]->publish(topic(kAnnounce), manifest_, 1, true)),
               "owner announces a valid manifest");
    std::this_thread::sleep_for(200ms);  // the status follows through the broker loop
  }

  void subscribe_and_receive_retained() {
    for (Who who : {kOwner, kOther, kAgent, kStranger}) {
      if (!clients_[who]) clients_[who] = connected(who);
      for (int l = 0; l < 6; ++l) {
        const Leaf leaf = static_cast<Leaf>(l);
        const int granted = clients_[who]->subscribe(topic(leaf), 1);
        tap_.check((granted < 0x80) == kSubscribe[leaf][who] && granted != MqttTestClient::kTimedOut,
                   cell(who, "subscribe", leaf, kSubscribe[leaf][who]) + " (SUBACK " + std::to_string(granted) + ")");
      }
    }
    for (Who who : {kOwner, kOther, kAgent, kStranger}) {
      for (Leaf leaf : {kAnnounce, kStatus}) {
        const bool expected = kReceive[leaf][who];
        const auto got = clients_[who]->wait_for(topic(leaf), expected ? 3000ms : 300ms);
        tap_.check(got.has_value() == expected && (!got || got->retain),
                   cell(who, "receive retained", leaf, expected));
      }
    }
  }

  void expect_receipt(Leaf leaf, const std::string& what) {
    for (Who who : {kOwner, kOther, kAgent, kStranger}) {
      const bool expected = kReceive[leaf][who];
      const auto got = clients_[who]->wait_for(topic(leaf), expected ? 3000ms : 300ms);
      tap_.check(got.has_value() == expected, cell(who, "receive", leaf, expected) + " (" + what + ")");
    }
  }

  void receive_live() {
    for (auto& c : clients_) {
      if (c) c->clear_received();
    }
    clients_[kOwner]->publish(topic(kTelemetry), payload_for(kTelemetry), 1, false);
    expect_receipt(kTelemetry, "live sample");

    // A call through the plugin's $CONTROL driver puts a cmd on the owner's topic.
    auto caller = connected(kAgent);
    caller->subscribe("$CONTROL/fleetmcp/v1/response", 1);
    caller->publish("$CONTROL/fleetmcp/v1", R"({"id":"m","tool":"sysecho.)" + owner_.node_id +
                                                R"(.echo.invoke","arguments":{"message":"matrix"}})");
    expect_receipt(kCmd, "a call's cmd");
    clients_[kOwner]->publish(topic(kCmdAck), payload_for(kCmdAck), 1, false);
    expect_receipt(kCmdAck, "an ack");

    std::string tampered = manifest_;
    tampered.replace(tampered.find("\"max_concurrency\":4"), 19, "\"max_concurrency\":3");
    clients_[kOwner]->publish(topic(kAnnounce), tampered, 1, true);
    expect_receipt(kRejected, "a refused announce");

    clients_[kOwner]->publish(topic(kAnnounce), manifest_, 1, true);
    expect_receipt(kAnnounce, "a live re-announce");
  }

  void publish_everything() {
    for (Who who : {kOwner, kOther, kAgent, kStranger}) {
      for (int l = 0; l < 6; ++l) {
        const Leaf leaf = static_cast<Leaf>(l);
        const int reason = clients_[who]->publish(topic(leaf), payload_for(leaf), 1, retained_leaf(leaf));
        const bool expected = kPublish[leaf][who];
        tap_.check(expected ? accepted(reason) : reason == kNotAuthorised,
                   cell(who, "publish", leaf, expected) + " (PUBACK " + std::to_string(reason) + ")");
      }
    }
  }

  std::string audit_text() const {
    std::ifstream in(audit_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // True when an audit line for `who` on `topic` with `marker` shows up within two seconds.
  bool audited(const std::string& who, const std::string& topic, const std::string& marker) const {
    for (int i = 0; i < 40; ++i) {
      std::istringstream lines(audit_text());
      for (std::string line; std::getline(lines, line);) {
        if (line.find("\"caller\":\"" + who + "\"") != std::string::npos &&
            line.find("\"topic\":\"" + topic + "\"") != std::string::npos && line.find(marker) != std::string::npos) {
          return true;
        }
      }
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  void wills() {
    clients_[kOwner].reset();  // the owner's Will connections take over its client id
    auto& watcher = clients_[kAgent];
    for (Who who : {kOwner, kOther, kAgent, kStranger}) {
      for (int l = 0; l < 6; ++l) {
        const Leaf leaf = static_cast<Leaf>(l);
        watcher->clear_received();
        const std::string marker = "will-" + std::to_string(who) + "-" + std::to_string(l);
        std::string payload = leaf == kAnnounce ? manifest_ : payload_for(leaf);
        if (leaf == kTelemetry) payload = R"({"marker":")" + marker + R"("})";
        auto c = connected(who, Received{topic(leaf), payload, retained_leaf(leaf)});
        c->disconnect(/*send_will=*/true);
        const bool expected = kWill[leaf][who];
        bool ok;
        if (expected && leaf == kTelemetry) {
          const auto got = watcher->wait_for(topic(leaf), 3000ms);
          ok = got && got->payload.find(marker) != std::string::npos;
        } else if (expected) {
          std::this_thread::sleep_for(300ms);
          ok = !audited(sub_name(who), topic(leaf), "(Will)");
        } else if (who == kOwner && leaf == kAnnounce) {
          ok = audited(sub_name(who), topic(leaf), "a Will on the announce topic is refused");
        } else {
          ok = audited(sub_name(who), topic(leaf), "publish (Will)");
        }
        tap_.check(ok, cell(who, "Will on", leaf, expected));
      }
    }
  }

  void anonymous() {
    for (int l = 0; l < 6; ++l) {
      for (const char* action : {"publish", "subscribe", "receive", "Will on"}) {
        std::optional<Received> will;
        if (std::string(action) == "Will on") will = Received{topic(static_cast<Leaf>(l)), "x", false};
        MqttTestClient c(options(kAnonymous, will));
        const int connack = c.connect();
        tap_.check(connack != 0 && !c.connected(),
                   cell(kAnonymous, action, static_cast<Leaf>(l), false) + " (refused at CONNECT: " +
                       std::to_string(connack) + ")");
      }
    }
    ClientOptions no_cert = broker_.anonymous();
    no_cert.port = broker_.tls_port;
    no_cert.ca_file = broker_.ca_file;
    MqttTestClient tls(no_cert);
    tap_.check(tls.connect() != 0, "anonymous on the device listener without a certificate: refused");
  }

  Broker broker_;
  NodeBundle owner_, other_;
  std::string agent_token_, stranger_token_, audit_, manifest_;
  std::array<std::unique_ptr<MqttTestClient>, kWhoCount> clients_;
  Tap tap_;
};

}  // namespace

int main(int argc, char** argv) { return run_program("plugin_acl_matrix", argc, argv, [](const ToolArgs& args) { return Matrix(args).run(); }); }
