// In-process figures of the plugin core (no broker, no network), over the same fake broker the
// unit tests use: the cost of an ACL READ per delivery, of a telemetry WRITE, and announce
// verification with and without the verdict cache (docs/protocol.md §10: full verification >= 12 k/s per
// core, known etag >= 200 k/s).
//   plugin_core [iterations]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/plugin_fake_broker.h"

using namespace fleetmcp;
using namespace fleetmcp::plugin;
using Clock = std::chrono::steady_clock;

namespace {

template <typename Body>
double ns_per_op(long iterations, Body&& body) {
  const auto start = Clock::now();
  for (long i = 0; i < iterations; ++i) body(i);
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(iterations);
}

long resident_bytes() {
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// Resident memory per node once `count` nodes are connected and announced (session, registry
// entry, certificate, cached verdict and manifest summary).
void memory_per_node(int count) {
  testing::PluginFixture f;
  std::vector<std::shared_ptr<testing::TestNode>> nodes;
  std::vector<std::string> manifests;
  for (int i = 0; i < count; ++i) {
    nodes.push_back(f.pki.enroll("acme"));
    manifests.push_back(testing::signed_manifest(*nodes.back(), testing::example_content(*nodes.back(), f.now)));
  }
  std::vector<testing::FakeClient*> clients;
  for (auto& n : nodes) clients.push_back(&f.connect_node(*n));
  const long before = resident_bytes();
  for (int i = 0; i < count; ++i) {
    f.publish(*clients[i], "$devices/" + nodes[i]->node_id + "/announce", manifests[i], true);
  }
  f.broker.published.clear();
  f.broker.published.shrink_to_fit();
  const long after = resident_bytes();
  std::printf("%-58s %10.0f bytes/node (%d nodes)\n", "plugin memory per connected, announced node",
              static_cast<double>(after - before) / count, count);
}

void report(const char* what, double ns) { std::printf("%-58s %10.1f ns/op %12.0f ops/s\n", what, ns, 1e9 / ns); }

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::stol(argv[1]) : 2'000'000;
  testing::PluginFixture f;
  const auto node = f.pki.enroll("acme");
  const auto stranger = f.pki.enroll("other");
  auto& device = f.connect_node(*node);
  auto& agent = f.connect_agent("claude", f.pki.token("claude", "acme", {"devices:read"}, f.now / 1000 + 3600));
  const std::string telemetry = "$devices/" + node->node_id + "/telemetry";
  const std::string announce_topic = "$devices/" + node->node_id + "/announce";
  const std::string sample = R"({"ts_ms":1763800000000,"cpu":{"usage_pct":3.5}})";
  f.publish(device, announce_topic, testing::signed_manifest(*node, testing::example_content(*node, f.now)), true);
  auto& other_device = f.connect_node(*stranger);
  f.check(other_device, kAclSubscribe, "$devices/" + stranger->node_id + "/cmd");
  const std::string foreign = "$devices/" + stranger->node_id + "/telemetry";

  std::printf("plugin core, %ld iterations per figure\n", n);
  report("ACL READ telemetry, agent of the node's tenant (allowed)", ns_per_op(n, [&](long) {
           f.plugin->on_acl_check(agent.view(), {kAclRead, telemetry, sample, false});
         }));
  report("ACL READ telemetry, node of another tenant (denied)", ns_per_op(n, [&](long) {
           f.plugin->on_acl_check(agent.view(), {kAclRead, foreign, sample, false});
         }));
  report("ACL READ announce, fresh-manifest check", ns_per_op(n, [&](long) {
           f.plugin->on_acl_check(agent.view(), {kAclRead, announce_topic, sample, true});
         }));
  report("ACL WRITE + MESSAGE, telemetry from its node", ns_per_op(n, [&](long) {
           f.plugin->on_acl_check(device.view(), {kAclWrite, telemetry, sample, false});
           f.plugin->on_message(device.view(), {telemetry, sample, false});
         }));

  // Verification: distinct manifests (each a cache miss: parse, schema, signature) ...
  const long manifests = 4000;
  std::vector<std::string> distinct;
  for (long i = 0; i < manifests; ++i) {
    distinct.push_back(testing::signed_manifest(*node, testing::example_content(*node, f.now + 1 + i)));
  }
  report("announce, full docs/protocol.md §5 verification (WRITE + MESSAGE)", ns_per_op(manifests, [&](long i) {
           if (f.publish(device, announce_topic, distinct[i], true) != Verdict::kAllow) std::abort();
         }));
  // ... and the same bytes again (a re-announce with a known etag).
  const std::string& last = distinct.back();
  report("announce, known etag (WRITE + MESSAGE)", ns_per_op(n / 10, [&](long) {
           if (f.publish(device, announce_topic, last, true) != Verdict::kAllow) std::abort();
         }));
  memory_per_node(5000);
  return 0;
}
