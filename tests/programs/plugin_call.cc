// The agent side of the plugin's $CONTROL/fleetmcp/v1 test driver (docs/plugin.md): sends tool
// calls or commands and prints each answer as one JSON line; with --count, prints latency
// percentiles instead (the command-path benchmark).
//
//   plugin_call --plain-port Q --sub NAME --token T --tool NAME [--message M | --arguments JSON] [--count N]
//   plugin_call --plain-port Q --sub NAME --token T --command counters|nodes
#include <algorithm>
#include <vector>

#include "common/base/json.h"
#include "tests/support/fleet_test_env.h"

using namespace fleetmcp;
using namespace fleetmcp::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kRequestTopic = "$CONTROL/fleetmcp/v1";
constexpr const char* kResponseTopic = "$CONTROL/fleetmcp/v1/response";

std::string request(const ToolArgs& args, int n) {
  const std::string id = std::to_string(n);
  if (!args.get("command").empty()) return R"({"id":")" + id + R"(","command":")" + args.get("command") + R"("})";
  const std::string arguments = args.get("arguments", R"({"message":")" + args.get("message", "ping") + R"("})");
  return R"({"id":")" + id + R"(","tool":")" + args.require("tool") + R"(","arguments":)" + arguments + "}";
}

void print_latencies(std::vector<double>& ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))]; };
  std::printf("calls=%zu p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n", ms.size(), at(0.5), at(0.9), at(0.99),
              ms.back());
}

int run(const ToolArgs& args) {
  Broker broker;
  broker.plain_port = std::stoi(args.require("plain-port"));
  MqttTestClient client(broker.agent(args.require("sub"), args.require("token")));
  if (const int rc = client.connect(); rc != 0) throw std::runtime_error("CONNACK " + std::to_string(rc));
  client.subscribe(kResponseTopic, 1);
  const int count = args.number("count", 1);
  std::vector<double> latencies;
  for (int i = 0; i < count; ++i) {
    const auto start = std::chrono::steady_clock::now();
    client.publish(kRequestTopic, request(args, i), 1);
    const auto answer = client.wait_for(kResponseTopic, 8000ms);
    if (!answer) throw std::runtime_error("no answer within 8 s");
    latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (count == 1) std::printf("%s\n", answer->payload.c_str());
  }
  if (count > 1) print_latencies(latencies);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_program("plugin_call", argc, argv, run); }
