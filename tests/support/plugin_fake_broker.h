// A BrokerPort that records what the plugin core asks of the broker, and a fixture that builds
// a FleetPlugin over it with a throw-away PKI, the shipped acl/fleetmcp.acl and the repository's
// schemas, with a clock the test sets. Header-only, for the plugin unit tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/core/fleet_plugin.h"
#include "common/base/json.h"
#include "tests/support/test_pki.h"

namespace fleetmcp::testing {

// $devices/<node_id>/<leaf>
inline std::string topic(const std::string& node_id, const std::string& leaf) {
  return "$devices/" + node_id + "/" + leaf;
}
inline json::Document parse(const std::string& text) { return json::parse_strict(text).value(); }

struct Published {
  std::string client_id, topic, payload;
  int qos = 0;
  bool retain = false;
  uint32_t expiry_s = 0;  // MQTT 5 message expiry interval; 0: none
};

class FakeBroker : public plugin::BrokerPort {
 public:
  void publish(std::string_view client_id, std::string_view topic, std::string_view payload, int qos,
               bool retain) override {
    published.push_back({std::string(client_id), std::string(topic), std::string(payload), qos, retain});
  }
  void publish_expiring(std::string_view client_id, std::string_view topic, std::string_view payload, int qos,
                        uint32_t expiry_s) override {
    published.push_back({std::string(client_id), std::string(topic), std::string(payload), qos, false, expiry_s});
  }
  void kick(std::string_view client_id) override { kicked.emplace_back(client_id); }
  void log(plugin::LogLevel, std::string_view line) override { logs.emplace_back(line); }
  std::optional<Certificate> client_certificate(const void* handle) override {
    const auto it = certificates.find(handle);
    if (it == certificates.end()) return std::nullopt;
    return it->second;
  }

  // Messages published on `topic` since the last take, oldest first.
  std::vector<Published> take(const std::string& topic) {
    std::vector<Published> out, rest;
    for (auto& p : published) (p.topic == topic ? out : rest).push_back(std::move(p));
    published = std::move(rest);
    return out;
  }

  std::vector<Published> published;
  std::vector<std::string> kicked, logs;
  std::map<const void*, Certificate> certificates;
};

// A client as the callbacks would describe it; `handle` is any unique address.
struct FakeClient {
  std::string id, username, address = "127.0.0.1";
  int protocol = 5;
  bool clean_session = true;
  int tag = 0;  // its address is the handle

  plugin::ClientView view() const { return {this, id, username, address, protocol, clean_session}; }
};

class PluginFixture {
 public:
  explicit PluginFixture(std::vector<std::pair<std::string, std::string>> extra = {}) : dir_(make_dir()) {
    write(dir_ / "ca.crt", pki.ca().to_pem());
    write(dir_ / "issuer.pub", ed25519_public_key_to_pem(pki.issuer().public_key()));
    write(dir_ / "revoked.txt", "");
    plugin::OptionList options = {
        {"ca_file", (dir_ / "ca.crt").string()},
        {"issuer_public_key", (dir_ / "issuer.pub").string()},
        {"acl_file", std::string(FLEETMCP_SOURCE_DIR) + "/acl/fleetmcp.acl"},
        {"loopback_port", "1884"},
        {"schemas_dir", std::string(FLEETMCP_SOURCE_DIR) + "/schemas"},
        {"revocation_file", (dir_ / "revoked.txt").string()},
        {"audit_log", (dir_ / "audit.log").string()},
        {"control_api", "true"},
    };
    for (auto& o : extra) options.push_back(std::move(o));
    options_ = plugin::parse_plugin_options(plugin::plugin_option_set(options)).value();
    plugin = std::make_unique<plugin::FleetPlugin>(options_, broker, [this] { return now; });
  }

  // A broker restart: the plugin saves its state and a new one loads it; the retained store
  // (not modelled here) would have been restored by mosquitto without asking the plugin.
  void restart() {
    plugin->shutdown();
    plugin.reset();
    broker.published.clear();
    plugin = std::make_unique<plugin::FleetPlugin>(options_, broker, [this] { return now; });
  }
  ~PluginFixture() {
    plugin.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A node connected with its certificate (identified at its first ACL check, as in mosquitto).
  FakeClient& connect_node(const TestNode& node) {
    clients_.push_back(std::make_unique<FakeClient>(FakeClient{node.node_id, node.node_id}));
    broker.certificates[clients_.back().get()] = node.certificate;
    return *clients_.back();
  }
  // `certificate`: the TLS client certificate it presents (a bridge's, over mutual TLS).
  FakeClient& connect_agent(const std::string& sub, const std::string& token, bool* accepted = nullptr,
                            const Certificate* certificate = nullptr) {
    return connect_client(FakeClient{sub + "-client", sub}, token, accepted, certificate);
  }
  // A client with its id, username, protocol and clean session as given, authenticated with `token`.
  FakeClient& connect_client(FakeClient client, const std::string& token, bool* accepted = nullptr,
                             const Certificate* certificate = nullptr) {
    clients_.push_back(std::make_unique<FakeClient>(std::move(client)));
    if (certificate != nullptr) broker.certificates[clients_.back().get()] = *certificate;
    const auto verdict = plugin->on_basic_auth(clients_.back()->view(), token);
    if (accepted != nullptr) *accepted = verdict == plugin::Verdict::kAllow;
    return *clients_.back();
  }

  plugin::Verdict publish(const FakeClient& c, const std::string& topic, const std::string& payload, bool retain) {
    const plugin::AclEvent event{plugin::kAclWrite, topic, payload, retain};
    const auto verdict = plugin->on_acl_check(c.view(), event);
    if (verdict == plugin::Verdict::kAllow) plugin->on_message(c.view(), {topic, payload, retain});
    return verdict;
  }
  plugin::Verdict check(const FakeClient& c, plugin::AclAccess access, const std::string& topic,
                        const std::string& payload = "x", bool retain = false) {
    return plugin->on_acl_check(c.view(), {access, topic, payload, retain});
  }
  void revoke(const std::string& id) {
    std::ofstream(dir_ / "revoked.txt", std::ios::app) << id << "\n";
    plugin->on_reload();
  }
  std::string audit_log() const {
    std::ifstream in(dir_ / "audit.log");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::path dir() const { return dir_; }

  TestPki pki;
  FakeBroker broker;
  int64_t now = fleetmcp::now_ms();
  std::unique_ptr<plugin::FleetPlugin> plugin;

 private:
  static std::filesystem::path make_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fleetmcp-plugin-test.XXXXXX").string();
    return std::filesystem::path(mkdtemp(tmpl.data()));
  }
  static void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

  std::filesystem::path dir_;
  plugin::PluginOptions options_;
  std::vector<std::unique_ptr<FakeClient>> clients_;
};

}  // namespace fleetmcp::testing
