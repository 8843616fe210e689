// fuzz_mcp: MCP JSON-RPC requests as an authenticated agent POSTs them to /mcp, handled by the
// real FrontHandler over the in-memory fleet of tests/support (the same harness as
// tests/unit/http/http_mcp_test.cc). The first byte picks the protocol revision of the session and
// whether the session header is sent; the rest is the body. The front, and a session per
// revision, are kept from input to input; after each request the fake clock runs until the calls
// it started have finished (front_harness.h).
#include <memory>
#include <string>

#include "fuzz/front_harness.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http::testing;

namespace {

constexpr std::string_view kRevisions[] = {"2025-03-26", "2025-06-18", "2025-11-25"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto& harness = fuzz::FrontHarness::get();
  auto& f = harness.fixture();
  const std::string& token = harness.token();
  const uint8_t selector = data[0];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string session = (selector & 4) ? std::string() : harness.session(kRevisions[selector % 3]);
  const auto ex = f.post_mcp(body, session, token);
  harness.end_input();
  // Exactly one answer per exchange: a reply, a stream, or (cancelled) an abandon.
  if (ex->answers != 1) fuzz::property_failed("an MCP exchange was not answered exactly once");
  if (ex->reply && ex->reply->status >= 200 && ex->reply->status < 300 && !ex->reply->body.empty()) {
    (void)body_of(*ex);  // a success body is JSON (else Error escapes: a finding)
  }
  return 0;
}
