// The Host check every request gets before it is routed.
#include <gtest/gtest.h>

#include "broker_plugin/http/transport/host_policy.h"

namespace fleetmcp::http {
namespace {

TEST(HostPolicy, LoopbackAndListedNamesWithAnyPort) {
  const HostPolicy p({"Fleet.Example", "10.0.0.5", "fd00::5"});
  using V = HostPolicy::Verdict;
  for (const char* ok : {"localhost", "LOCALHOST:8080", "127.0.0.1:1", "[::1]:8080", "[::1]", "fleet.example",
                         "fleet.EXAMPLE:443", "10.0.0.5:8080", "[fd00::5]:8080"}) {
    EXPECT_EQ(p.check(ok), V::kAllowed) << ok;
  }
  for (const char* other : {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.2", "[::2]:8080"}) {
    EXPECT_EQ(p.check(other), V::kNotOurs) << other;
  }
  for (const char* bad : {"", ":8080", "localhost:80x", "[::1", "evil@localhost", "local host", "localhost/x"}) {
    EXPECT_EQ(p.check(bad), V::kMalformed) << bad;
  }
}

}  // namespace
}  // namespace fleetmcp::http
