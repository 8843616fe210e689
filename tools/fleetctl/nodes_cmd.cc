// fleetctl nodes: the nodes an agent can see, read the way any MQTT agent reads them
// (docs/protocol.md §3): the retained $devices/+/status the plugin writes and the retained
// $devices/+/announce manifests, over the agent listener with the agent's token as password.
#include <mqtt/client.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/protocol/topics.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"
#include "tools/fleetctl/fleet_access.h"

namespace fleetctl {
namespace {

using fleetmcp::Error;
using fleetmcp::ErrorCode;
namespace json = fleetmcp::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kHelp =
    "usage: fleetctl nodes [--mqtt URL] [--token-file F] [--user NAME] [--cacert F] [--wait-s N] [--json]\n\n"
    "Lists the nodes your agent token may see: state (online, offline, expired, revoked), since\n"
    "when, when the manifest expires, and the capabilities' cap_ids (--json adds their kinds). It\n"
    "reads the retained status and announce messages of $devices/+/ on the agent listener.\n\n"
    "  --mqtt URL      mqtt://host:port or mqtts://host:port (default $FLEETMCP_MQTT)\n"
    "  --token-file F  a file holding the agent token, the MQTT password (default $FLEETMCP_TOKEN)\n"
    "  --user NAME     the MQTT username (default: the token's sub)\n"
    "  --cacert F      mqtts: the fleet's CA certificate\n"
    "  --wait-s N      read for at most N seconds (default 5); it stops earlier once the retained\n"
    "                  messages have arrived (0.5 s without a new one)\n"
    "  --json          print a JSON array, one object per node, instead of the table\n\n"
    "Exit 0 with the list (possibly empty); 2 for a bad command line; 3 when the broker cannot be\n"
    "reached or refuses the login.\n";

constexpr auto kQuietPeriod = std::chrono::milliseconds(500);

struct NodeRow {
  std::string state = "unknown";  // no status seen yet
  int64_t since_ms = 0, expires_at_ms = 0;
  std::string manifest_etag;
  bool status_seen = false;
  std::vector<std::pair<std::string, std::string>> capabilities;  // cap_id, kind
};

// Payloads come from the broker; one that does not parse leaves the row as it was. The status
// names the manifest the plugin accepted, so its expires_at_ms wins over the announce's.
void apply(NodeRow& row, fleetmcp::DeviceLeaf leaf, const std::string& payload) {
  const auto parsed = json::parse_strict(payload);
  if (!parsed || !parsed->IsObject()) return;  // includes an empty payload: a cleared retained message
  const json::Document& doc = *parsed;
  if (leaf == fleetmcp::DeviceLeaf::kStatus) {
    row.state = std::string(json::get_string(doc, "state").value_or("unknown"));
    row.since_ms = json::get_int64(doc, "since_ms").value_or(0);
    row.manifest_etag = std::string(json::get_string(doc, "manifest_etag").value_or(""));
    row.expires_at_ms = json::get_int64(doc, "expires_at_ms").value_or(row.expires_at_ms);
    row.status_seen = true;
  } else if (leaf == fleetmcp::DeviceLeaf::kAnnounce) {
    if (!row.status_seen) row.expires_at_ms = json::get_int64(doc, "expires_at_ms").value_or(0);
    row.capabilities.clear();
    const auto* caps = json::find(doc, "capabilities");
    if (!caps || !caps->IsArray()) return;
    for (const auto& cap : caps->GetArray()) {
      if (!cap.IsObject()) continue;
      row.capabilities.emplace_back(json::get_string(cap, "cap_id").value_or(""), json::get_string(cap, "kind").value_or(""));
    }
  }
}

mqtt::connect_options connect_options(const Args& args, const std::string& user, const std::string& token) {
  auto builder = mqtt::connect_options_builder()
                     .mqtt_version(MQTTVERSION_5)
                     .clean_start(true)
                     .connect_timeout(std::chrono::seconds(10))
                     .user_name(user)
                     .password(token);
  if (auto ca = args.get("cacert")) {
    builder.ssl(mqtt::ssl_options_builder().trust_store(*ca).enable_server_cert_auth(true).verify(true).finalize());
  }
  return builder.finalize();
}

// A CONNACK refusal comes back as its MQTT 5 reason code (>= 0x80, e.g. 135 not authorized) in
// the return code; Paho's own failures are negative (-1: TCP or TLS).
Error connect_error(const mqtt::exception& e, const std::string& url, const std::string& user) {
  if (e.get_return_code() >= 0x80 || e.get_reason_code() >= 0x80) {
    return Error(ErrorCode::kSafetyDenied, "the broker at " + url + " refused the login of " + user + ": " + e.what(),
                 "check the token: not expired (fleetctl token verify --pub issuer.pub), issued by this fleet, with "
                 "the devices:read scope, and --user (if given) equal to its sub");
  }
  return Error(ErrorCode::kInternal, "cannot connect to " + url + ": " + e.what(),
               "is the broker running, and is this its agent listener (FLEETMCP_MQTT)? mqtts:// needs --cacert");
}

std::map<std::string, NodeRow> read_fleet(const Args& args, std::chrono::seconds wait) {
  const std::string url = option_or_env(args, "mqtt", "FLEETMCP_MQTT");
  const std::string token = agent_token(args);
  const std::string user = args.get("user").value_or(token_subject(token));
  // The broker accepts an agent's client id only if it starts with "<sub>-" (docs/threat-model.md).
  mqtt::client client(url, user + "-fleetctl-" + std::to_string(::getpid()), mqtt::create_options(MQTTVERSION_5));
  try {
    client.connect(connect_options(args, user, token));
    client.start_consuming();
    client.subscribe(fleetmcp::kEveryStatus, 1);
    client.subscribe(fleetmcp::kEveryAnnounce, 1);
  } catch (const mqtt::exception& e) {
    throw connect_error(e, url, user);
  }
  std::map<std::string, NodeRow> nodes;
  const auto deadline = Clock::now() + wait;
  mqtt::const_message_ptr message;
  while (Clock::now() < deadline && client.try_consume_message_for(&message, kQuietPeriod)) {
    if (!message) continue;
    const auto& name = message->get_topic();  // the views of `topic` point into it
    const auto topic = fleetmcp::parse_devices_topic(name);
    if (topic && (topic->kind == fleetmcp::DeviceLeaf::kStatus || topic->kind == fleetmcp::DeviceLeaf::kAnnounce)) {
      apply(nodes[std::string(topic->node_id)], topic->kind, message->to_string());
    }
  }
  client.disconnect();
  return nodes;
}

std::string utc(int64_t ms) {
  if (!ms) return "-";
  const std::time_t seconds = ms / 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The cap_ids: with the kind's short name they make the tool names (kind_short.node_id.cap_id.verb).
std::string cap_ids_of(const NodeRow& row) {
  std::string out;
  for (const auto& [cap_id, kind] : row.capabilities) out += (out.empty() ? "" : ",") + cap_id;
  return out.empty() ? "-" : out;
}

void print_table(const std::map<std::string, NodeRow>& nodes) {
  std::printf("%-26s  %-8s  %-20s  %-20s  %s\n", "NODE_ID", "STATE", "SINCE", "MANIFEST EXPIRES", "CAP_IDS");
  for (const auto& [id, row] : nodes) {
    std::printf("%-26s  %-8s  %-20s  %-20s  %s\n", id.c_str(), row.state.c_str(), utc(row.since_ms).c_str(),
                utc(row.expires_at_ms).c_str(), cap_ids_of(row).c_str());
  }
  std::fflush(stdout);
  std::fprintf(stderr, "%zu node(s)\n", nodes.size());
}

void print_json(const std::map<std::string, NodeRow>& nodes) {
  json::Document out(rapidjson::kArrayType);
  auto& a = out.GetAllocator();
  for (const auto& [id, row] : nodes) {
    json::Value node(rapidjson::kObjectType), caps(rapidjson::kArrayType);
    for (const auto& [cap_id, kind] : row.capabilities) {
      json::Value cap(rapidjson::kObjectType);
      cap.AddMember("cap_id", json::string_value(cap_id, a), a);
      cap.AddMember("kind", json::string_value(kind, a), a);
      caps.PushBack(cap, a);
    }
    node.AddMember("node_id", json::string_value(id, a), a);
    node.AddMember("state", json::string_value(row.state, a), a);
    if (row.since_ms) node.AddMember("since_ms", json::Value(row.since_ms), a);
    if (!row.manifest_etag.empty()) node.AddMember("manifest_etag", json::string_value(row.manifest_etag, a), a);
    if (row.expires_at_ms) node.AddMember("expires_at_ms", json::Value(row.expires_at_ms), a);
    node.AddMember("capabilities", caps, a);
    out.PushBack(node, a);
  }
  std::cout << json::to_string(out) << "\n";
}

}  // namespace

int cmd_nodes(const Argv& argv) {
  Args args(argv, {"mqtt", "token-file", "user", "cacert", "wait-s"}, {"json"});
  if (args.help()) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (!args.positionals().empty()) {
    throw Error(ErrorCode::kBadRequest, "fleetctl nodes takes no positional arguments", "see fleetctl nodes --help");
  }
  const auto nodes = read_fleet(args, std::chrono::seconds(args.integer("wait-s", 5, 1, 3600)));
  if (args.has("json")) {
    print_json(nodes);
  } else {
    print_table(nodes);
  }
  return kExitOk;
}

}  // namespace fleetctl
