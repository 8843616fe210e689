// A minimal node for the plugin's integration tests: connects with its enrolment bundle,
// announces a signed manifest (echo + metrics, RFC-0005 §9), and answers cmds on its cmd topic.
//
//   plugin_test_node --pki DIR --tls-port P --plain-port Q --node ID
//                    [--ttl-ms N] [--mode echo|silent|late|wrong-node|vanish] [--late-ms N]
//                    [--run-ms N] [--telemetry-ms N]
// Modes: echo answers; silent never answers; late answers after --late-ms; wrong-node answers
// with another node_id in the result; vanish closes its socket (no DISCONNECT) on the first cmd.
// Prints "announced <etag>" once the announce is acknowledged, then one line per cmd.
#include <unistd.h>

#include <thread>

#include "common/crypto/digest.h"
#include "common/base/json.h"
#include "tests/support/fleet_test_env.h"

using namespace fleetmcp;
using namespace fleetmcp::testing;
using namespace std::chrono_literals;

namespace {

std::string cmd_ack(const std::string& in_reply_to, const std::string& node_id, const std::string& message) {
  return R"({"type":"cmd_ack","msg_id":")" + new_msg_id() + R"(","in_reply_to":")" + in_reply_to +
         R"(","payload":{"ok":true,"result":{"message":")" + message + R"(","received_at_ms":)" +
         std::to_string(now_ms()) + R"(,"node_id":")" + node_id + R"("}}})";
}

int serve(const ToolArgs& args) {
  const Broker broker = Broker::from(args);
  const NodeBundle node = load_bundle(args.require("pki"), args.require("node"));
  const std::string mode = args.get("mode", "echo");
  const auto run_for = std::chrono::milliseconds(args.number("run-ms", 600'000));
  const int telemetry_ms = args.number("telemetry-ms", 0);
  MqttTestClient client(broker.node(node));
  if (client.connect() != 0) throw std::runtime_error("cannot connect");
  client.subscribe(devices_topic(node.node_id, "cmd"), 1);
  client.subscribe(devices_topic(node.node_id, "rejected"), 1);
  const std::string manifest = sign(node, example_manifest(node, now_ms(), args.number("ttl-ms", 3'600'000)));
  const int reason = client.publish(devices_topic(node.node_id, "announce"), manifest, 1, true);
  if (reason != 0 && reason != 0x10) throw std::runtime_error("announce refused: PUBACK " + std::to_string(reason));
  std::printf("announced %s\n", blake3_256_hex(manifest).c_str());
  std::fflush(stdout);

  const auto deadline = std::chrono::steady_clock::now() + run_for;
  auto next_sample = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline && client.connected()) {
    if (telemetry_ms > 0 && std::chrono::steady_clock::now() >= next_sample) {
      client.publish(devices_topic(node.node_id, "telemetry"), R"({"ts_ms":)" + std::to_string(now_ms()) + "}", 0);
      next_sample += std::chrono::milliseconds(telemetry_ms);
    }
    const auto cmd = client.wait_for(devices_topic(node.node_id, "cmd"), 50ms);
    if (!cmd) continue;
    const json::Document doc = json::parse_strict(cmd->payload).value();
    const std::string msg_id(json::get_string(doc, "msg_id").value_or(""));
    const std::string message(json::get_string(doc["payload"]["arguments"], "message").value_or(""));
    std::printf("cmd %s %s\n", msg_id.c_str(), mode.c_str());
    std::fflush(stdout);
    if (mode == "vanish") _exit(0);  // the socket closes without a DISCONNECT
    if (mode == "silent") continue;
    if (mode == "late") std::this_thread::sleep_for(std::chrono::milliseconds(args.number("late-ms", 6000)));
    const std::string answering_as = mode == "wrong-node" ? std::string("01hzx9k3m4p7q8r9s0t1v2w3xy") : node.node_id;
    client.publish(devices_topic(node.node_id, "cmd_ack"), cmd_ack(msg_id, answering_as, message), 1);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_program("plugin_test_node", argc, argv, serve); }
